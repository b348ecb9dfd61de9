"""The cost page's training against generation: targets are the inputs shifted by one and every
row is trained at once under a causal mask; generation feeds each output back in, one row a
step, keeping a K/V cache."""

import numpy as np
import pandas as pd
import streamlit as st

import core
from ui.figures.axes import token_axes
from ui.figures.heatmaps import heatmap
from ui.figures.place import grid
from ui.kit.escape import markdown_text
from ui.kit.i18n import t
from ui.kit.number_text import indices, power_of_ten, shown_index
from ui.kit.player import player
from ui.work.traces import TraceKey, sentence_trace


@st.cache_data(max_entries=32, show_spinner=False)
def training_and_decoding(key: TraceKey) -> tuple[np.ndarray, np.ndarray]:
    """output with a causal mask in one pass, and token by token with a K/V cache (host arrays)."""
    data = sentence_trace(key)
    X, W, h, n = data.trace.X, data.W, key.n_heads, data.n
    full = core.attention(X, W, h, mask=core.causal_mask(n), keep={"output"}).output
    return core.to_numpy(full), core.to_numpy(core.decode_incremental(X, W, h))


def shifted_targets(tokens, base: int) -> pd.DataFrame:
    """One row per prediction: the inputs the causal mask lets row i see, and its target, the
    token one position later."""
    return pd.DataFrame(
        {
            t("cost.col_row"): [shown_index(i, base) for i in range(len(tokens) - 1)],
            t("cost.col_sees"): [" ".join(tokens[: i + 1]) for i in range(len(tokens) - 1)],
            t("cost.col_input"): list(tokens[:-1]),
            t("cost.col_target"): list(tokens[1:]),
        }
    )


def training(data, settings) -> None:
    """Inputs and targets one position apart, then the one-pass rows beside the token-by-token
    rows on one colour range."""
    tokens, base = list(data.tokens), settings.base
    st.markdown(t("cost.shift_text"))
    if data.n > 1:
        st.dataframe(shifted_targets(tokens, base), hide_index=True, width="stretch")
        st.caption(t("cost.shift_caption", rows=data.n - 1))
    full, incremental = training_and_decoding(TraceKey.of(settings))
    st.success(t("cost.same", diff=power_of_ten(float(np.abs(full - incremental).max()))))
    st.caption(t("cost.teacher_forcing"))
    common = {
        **token_axes(settings.decimals),
        "bound": float(max(np.abs(full).max(), np.abs(incremental).max())) or 1.0,
    }
    dims = indices(settings.d_model, base)
    grid(
        [
            (heatmap(full, tokens, dims, title=t("cost.full"), **common), "co_full"),
            (heatmap(incremental, tokens, dims, title=t("cost.incremental"), **common), "co_incr"),
        ],
        per_row=2,
    )


def _generated_so_far(tokens, step: int) -> str:
    """The tokens fed in so far, the newest in bold, and the place of the next one."""
    shown = [markdown_text(token) for token in tokens[: step + 1]]
    shown[-1] = f"**{shown[-1]}**"
    return " ".join(shown) + " → ?"


def generation(data, settings) -> None:
    """A player over the generation steps: the new input row, where it came from, and the K and
    V caches after the step (colours fixed over the steps)."""
    tokens, base, n = list(data.tokens), settings.base, data.n
    st.markdown(t("cost.gen_text"))
    K, V = data.trace.K[0], data.trace.V[0]  # head 0
    common = token_axes(settings.decimals)

    def draw(step: int) -> None:
        if step == 0:
            source = t("cost.gen_prompt")
        else:
            source = t("cost.gen_fed_back", prev=step)  # steps are counted from 1
        st.markdown(
            t("cost.gen_step", t=step + 1, token=markdown_text(tokens[step]), source=source)
        )
        st.markdown(_generated_so_far(tokens, step))
        st.caption(t("cost.cache", t=step + 1, rows=step + 1, n=n, head=shown_index(0, base)))
        caches = [
            (
                heatmap(
                    M[: step + 1],
                    tokens[: step + 1],
                    indices(M.shape[1], base),
                    title=t("cost.cache_title", name=name),
                    bound=float(np.abs(M).max()) or 1.0,
                    **common,
                ),
                f"co_cache_{name}",
            )
            for name, M in (("K", K), ("V", V))  # cached after step t: rows 0..t
        ]
        grid(caches, per_row=2)

    player(t("cost.step"), n, "co_step", draw, first=1)  # steps are counted from 1
