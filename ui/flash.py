"""The flash page: the online softmax tile by tile over head 0, and memory against n."""

import numpy as np
import pandas as pd
import streamlit as st

from core.flash import flash_attention
from ui.figures import heatmap, line_chart
from ui.i18n import t
from ui.layout import grid, plot
from ui.measure_panel import arriving
from ui.numbers import num


def tiles(data, settings) -> None:
    """Tile size and step sliders, the scores with the current tile outlined, the running max,
    sum and rescaling of its rows, and the partial output beside the final one."""
    tr, tokens, dec, n = data.trace, list(data.tokens), settings.decimals, data.n
    Q, K, V = tr.Q[0], tr.K[0], tr.V[0]  # head 0
    tile = st.slider(t("fl_tile"), 1, max(1, n), min(2, n), key="fl_tile")
    O, steps = flash_attention(Q, K, V, tile, tile, data.mask, record=True)
    index = st.slider(t("fl_step_slider"), 1, len(steps), len(steps), key="fl_step") - 1
    step = steps[index]
    tiles_per_row = -(-n // tile)
    st.markdown(f"**{t('fl_step', qi=index // tiles_per_row, kj=index % tiles_per_row)}**")
    forbidden = None if data.mask is None else ~data.mask
    scores = heatmap(
        tr.S_masked[0],
        tokens,
        tokens,
        title=t("fl_scores"),
        decimals=dec,
        forbidden=forbidden,
        square=True,
        outline=(step.rows, step.cols),
    )
    plot(scores, "fl_scores")
    rows = range(*step.rows)
    st.subheader(t("fl_state"))
    state = {
        t("fl_row"): [f"{i} · {tokens[i]}" for i in rows],
        t("fl_m"): [num(v, 4) if np.isfinite(v) else "−∞" for v in step.m],
        t("fl_l"): [num(v, 4) for v in step.l],
        t("fl_rescale"): [num(v, 4) for v in step.rescale],
    }
    st.dataframe(pd.DataFrame(state), hide_index=True, width="stretch")
    common = {"decimals": dec, "row_title": t("axis_token"), "col_title": t("axis_dim")}
    dims, row_tokens = [str(c) for c in range(V.shape[1])], [tokens[i] for i in rows]
    final = tr.O[0][step.rows[0] : step.rows[1]]
    grid(
        [
            (
                heatmap(step.partial, row_tokens, dims, title=t("fl_partial"), **common),
                "fl_partial",
            ),
            (heatmap(final, row_tokens, dims, title="softmax(S) V", **common), "fl_final"),
        ],
        per_row=2,
    )
    st.success(t("fl_equal", diff=f"{np.abs(O - tr.O[0]).max():.1e}"))


def _memory_chart(memory: dict) -> None:
    series = {t("fl_full"): memory["full"], t("fl_tiled"): memory["tiled"]}
    title = t("fl_memory_title")
    plot(line_chart(memory["n"], series, title=title, x_title="n", y_title="MB"), "fl_memory")


def memory() -> None:
    """Peak memory of the full n x n against the tiles, measured once per server (in a child)."""
    st.subheader(t("fl_memory_title"))
    st.caption(t("fl_memory_text"))
    arriving(("flash_memory",), "flash_memory", {}, _memory_chart)
