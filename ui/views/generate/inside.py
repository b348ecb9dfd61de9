"""Inside the model: training against generation on the prompt, one layer and head's attention
with its window, and how this real layer differs from the walkthrough's textbook one."""

import math

import numpy as np
import streamlit as st

from core import to_numpy
from core.pretrained.gemma import allowed, rms_norm, rope
from ui.figures.charts import A_heatmap
from ui.figures.place import plot
from ui.kit.decoding import decoder, prompt_pass
from ui.kit.escape import markdown_text
from ui.kit.i18n import t
from ui.kit.number_text import indices, num, power_of_ten, shown_index
from ui.kit.tables import table
from ui.views.generate.next_token import label, probability_text


def training(model, ids: tuple, decimals: int, base: int) -> None:
    st.markdown(t("generate.train_text"))
    seen = prompt_pass(ids)
    n = len(seen.target_p)
    if n == 0:
        return
    rows = {
        t("generate.col_position"): indices(n, base),
        t("generate.col_input"): [label(model, i) for i in ids[:n]],
        t("generate.col_target"): [label(model, i) for i in ids[1 : n + 1]],
        t("generate.col_p_pass"): [probability_text(p) for p in seen.target_p],
        t("generate.col_p_cached"): [probability_text(p) for p in seen.target_p_cached],
    }
    table(rows)
    loss = float(-np.log(np.maximum(seen.target_p, 1e-30)).mean())
    st.markdown(t("generate.loss", n=n, loss=num(loss, 3), diff=power_of_ten(float(seen.max_diff))))


def attention_map(model, ids: tuple, view: tuple, decimals: int, base: int) -> None:
    layer, head = view
    c = model.config
    A = prompt_pass(ids).A[layer]  # [h, n, n]
    positions = np.arange(A.shape[1])
    hidden = ~allowed(positions, positions, c.window if c.is_local(layer) else None)
    pieces = [label(model, i) for i in ids]
    L, H = shown_index(layer, base), shown_index(head, base)
    title = t("generate.map_title", layer=L, head=H)
    plot(A_heatmap(A[head], pieces, title=title, decimals=decimals, forbidden=hidden), "gen_map")
    key = "generate.map_local" if c.is_local(layer) else "generate.map_global"
    st.caption(t(key, layer=L, window=c.window))
    sinks = t("shell.list_sep").join(
        t("generate.head_weight", head=shown_index(h, base), weight=num(float(w), 2))
        for h, w in enumerate(mean_on_first(A))
    )
    st.caption(markdown_text(t("generate.sink", layer=L, sinks=sinks)))


# The two computations below are made once per prompt and shared, as the model's passes are
# (ui/kit/decoding.py): each is a few products with a layer's weights, and OpenBLAS's threads
# spin on the other core after each one, ~45 ms of CPU a rerun of this page (issue 24).
@st.cache_resource(max_entries=16, show_spinner=False)
def _rope_scores(ids: tuple, shift: int) -> tuple[float, float]:
    """Layer 0, head 0: the last two pieces' q·k/16 at their own positions, and moved by shift."""
    model = decoder()
    c, w = model.config, model.layers[0]
    x = rms_norm(model.embed(ids[-2:]), w.attn_norm, c.eps)
    q = rms_norm((x @ w.W_Q.T)[:, : c.head_dim], w.q_norm, c.eps)
    k = rms_norm(x @ w.W_K.T, w.k_norm, c.eps)
    at = np.array([len(ids) - 1, len(ids) - 2])
    scores = []
    for move in (0, shift):
        qi = rope(q[1:2], at[:1] + move, 10_000.0)[0]
        kj = rope(k[0:1], at[1:] + move, 10_000.0)[0]
        scores.append(float(qi @ kj) / math.sqrt(c.head_dim))
    return scores[0], scores[1]


def differences(model, ids: tuple, decimals: int, base: int) -> None:
    with st.expander(t("generate.rope_title")):
        if len(ids) >= 3:
            s1, s2 = _rope_scores(ids, 40)
            i, j = len(ids) - 1, len(ids) - 2
            names = {"a": markdown_text(label(model, ids[-1])),
                     "b": markdown_text(label(model, ids[-2]))}  # fmt: skip
            at = {"i": i + base, "j": j + base, "i2": i + 40 + base, "j2": j + 40 + base}
            st.markdown(t("generate.rope_text", **names, **at, s1=num(s1, 4), s2=num(s2, 4)))
    with st.expander(t("generate.mqa_title")):
        st.markdown(t("generate.mqa_text"))
    with st.expander(t("generate.norm_title")):
        x_mean, x_rms, q_before, q_after = _norms(ids[-1])
        numbers = {"mean": num(x_mean, 3), "rms": num(x_rms, 3), "q_before": num(q_before, 2),
                   "q_after": num(q_after, 2)}  # fmt: skip
        st.markdown(t("generate.norm_text", layer=shown_index(0, base), **numbers))
    with st.expander(t("generate.ffn_title")):
        st.markdown(t("generate.ffn_text"))
    with st.expander(t("generate.scale_title")):
        st.markdown(t("generate.scale_text"))
    with st.expander(t("generate.tied_title")):
        st.markdown(
            t("generate.tied_text", vocab=f"{model.E.shape[0]:,}", mb=model.E.nbytes // 2**20)
        )


@st.cache_resource(max_entries=16, show_spinner=False)
def _norms(token: int) -> tuple[float, float, float, float]:
    """Layer 0, the last piece: its scaled embedding's mean and RMS, and its query head's length
    before and after the query's own RMSNorm."""
    model = decoder()
    c, w = model.config, model.layers[0]
    x = model.embed([token])[0]
    q_raw = (rms_norm(x, w.attn_norm, c.eps) @ w.W_Q.T)[: c.head_dim]
    x, q_raw, q_normed = (to_numpy(v) for v in (x, q_raw, rms_norm(q_raw, w.q_norm, c.eps)))
    rms = float(np.sqrt((x * x).mean()))
    return float(x.mean()), rms, float(np.linalg.norm(q_raw)), float(np.linalg.norm(q_normed))


def mean_on_first(A: np.ndarray) -> np.ndarray:
    """Each head's mean weight on position 0 (<bos>) over the queries after it: [h]."""
    return A[:, 1:, 0].mean(axis=1) if A.shape[1] > 1 else A[:, :, 0].mean(axis=1)
