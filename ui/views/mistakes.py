"""The mistakes page: each mistake beside the right result, from numbers computed once per
sentence and settings (core/lessons/mistakes.py holds the mistakes themselves), and what the
check that catches it says, in a neutral panel with the hint for that mistake's own cause."""

import numpy as np
import streamlit as st

import core
from core.lessons import mistakes
from core.softmax import softmax_rows
from ui.figures.heatmaps import A_heatmap, heatmap
from ui.figures.place import grid
from ui.kit.i18n import t
from ui.kit.number_text import indices, num, sum_notes
from ui.work.traces import TraceKey, sentence_trace


@st.cache_data(max_entries=32, show_spinner=False)
def mistake_numbers(key: TraceKey) -> dict:
    """Head 0's wrong and right matrices for the order and d_v mistakes (host arrays)."""
    data = sentence_trace(key)
    X, W, h, n, d_k = data.trace.X, data.W, key.n_heads, data.n, data.d_k
    causal = core.to_numpy(core.causal_mask(n))
    right_order = core.to_numpy(core.attention_loop(X, W, h, mask=causal).A)[0]  # per token
    d_v = 2 * d_k  # a layer whose values are wider than its keys
    config = core.AttentionConfig(d_model=key.d_model, n_heads=h, d_k=d_k, d_v=d_v, seed=key.seed)
    W_dv = core.init_weights(config, n=n)
    S = core.to_numpy(core.attention(X, W_dv, h, keep={"S"}).S)[0]
    return {
        "causal": causal,
        "wrong_order": mistakes.mask_after_softmax(data.trace.S_scaled[0], causal),
        "right_order": right_order,
        "d_v": d_v,
        "wrong_dv": mistakes.scale_by_d_v(S, d_v),
        "right_dv": core.to_numpy(core.attention_loop(X, W_dv, h).A)[0],
    }


def check_says(finding: str, hint: str) -> None:
    """What the check reports about a mistake made on purpose: a neutral panel, not an alarm."""
    with st.container(border=True):
        st.caption(t("mistakes.check_says"))
        st.markdown(finding)
        st.markdown(hint)


def shape_finding(error: core.InputError) -> str:
    """The shape check's words, without a guess at the cause (each case gives its own)."""
    return t("mistakes.shape_check", **error.params)


def titles(what_wrong: str, what_right: str) -> tuple[str, str]:
    return t("mistakes.wrong_title", what=what_wrong), t("mistakes.right_title", what=what_right)


def wrong_and_right(name: str, what: tuple[str, str], wrong, right, draw) -> None:
    """The wrong result beside the right one, on one colour range, each titled by what it
    computes: ``draw(M, title, bound, side)`` makes each figure (side "wrong" or "right")."""
    bound, named = top(wrong, right), titles(*what)
    panels = [
        (draw(M, title, bound, side), f"ms_{name}_{side}")
        for M, title, side in zip((wrong, right), named, ("wrong", "right"))
    ]
    grid(panels, per_row=2)


def top(*matrices) -> float:
    """One colour range for a wrong and a right panel: the largest |value| of both."""
    return float(max(np.nanmax(np.abs(M)) for M in matrices))


def wrong_axis(S_scaled, tokens, dec: int) -> None:
    wrong = mistakes.softmax_wrong_axis(S_scaled)
    right = softmax_rows(S_scaled)  # the engine's own softmax
    wrong_and_right(
        "axis", ("softmax(S, axis=0)", "softmax(S, axis=1)"), wrong, right,
        lambda M, title, bound, _: A_heatmap(M, tokens, title=title, decimals=dec, bound=bound),
    )  # fmt: skip
    rows, columns = (t("mistakes.sep").join(sum_notes(wrong, dec, axis=a)) for a in (1, 0))
    check_says(t("mistakes.col_sums", rows=rows, sums=columns), t("mistakes.axis_hint"))


def missing_transpose(Q, K, tokens, dec: int, base: int) -> None:
    n, d_k = Q.shape
    try:
        QK = mistakes.scores_without_transpose(Q, K)
    except core.InputError as error:
        check_says(shape_finding(error), t("mistakes.transpose_hint", n=n, d_k=d_k))
        return
    check_says(t("mistakes.transpose_fits", n=n), t("mistakes.transpose_hint", n=n, d_k=d_k))
    columns = {"wrong": indices(d_k, base), "right": tokens}  # Q K's columns are dimensions

    def draw(M, title, bound, side):
        return heatmap(M, tokens, columns[side], title=title, decimals=dec, bound=bound)

    wrong_and_right("tr", ("Q K", "Q Kᵀ"), QK, Q @ K.T, draw)


def mask_after_softmax(numbers: dict, tokens, dec: int) -> None:
    wrong, right, forbidden = numbers["wrong_order"], numbers["right_order"], ~numbers["causal"]
    st.markdown(t("mistakes.order_text", diff=num(float(np.abs(wrong - right).max()), dec)))
    wrong_and_right(
        "order", (t("mistakes.order_wrong"), t("mistakes.order_right")), wrong, right,
        lambda M, title, bound, _: A_heatmap(M, tokens, title=title, decimals=dec,
                                             forbidden=forbidden, bound=bound),
    )  # fmt: skip
    rows = t("mistakes.sep").join(sum_notes(wrong, dec))
    check_says(t("mistakes.order_check", rows=rows), t("mistakes.order_hint"))


def d_k_and_d_v(numbers: dict, data, settings) -> None:
    d_k, d_v, h, n = data.d_k, numbers["d_v"], settings.n_heads, data.n
    wrong, right, tokens = numbers["wrong_dv"], numbers["right_dv"], list(data.tokens)
    diff = num(float(np.abs(wrong - right).max()), settings.decimals)
    st.markdown(t("mistakes.dv_text", d_k=d_k, d_v=d_v, diff=diff))
    wrong_and_right(
        "dv", (f"softmax(S / √{d_v})", f"softmax(S / √{d_k})"), wrong, right,
        lambda M, title, bound, _: heatmap(M, tokens, tokens, title=title, scale="unit",
                                           decimals=settings.decimals, bound=bound),
    )  # fmt: skip
    try:
        core.check_matmul((n, h * d_v), (h * d_k, settings.d_model), "concat", "W_O")
    except core.InputError as error:
        check_says(shape_finding(error), t("mistakes.dv_fix", wrong=h * d_k, rows=h * d_v))
