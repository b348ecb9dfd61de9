"""The mistakes page: each mistake beside the right result, from numbers computed once per
sentence and settings (core/lessons/mistakes.py holds the mistakes themselves), and what the
check that catches it says, in a neutral panel with the hint for that mistake's own cause."""

import numpy as np
import streamlit as st

import core
from core.lessons import mistakes
from core.softmax import softmax_rows
from ui.figures.charts import A_heatmap, heatmap
from ui.figures.place import grid
from ui.kit.i18n import t
from ui.kit.number_text import indices, num, sum_notes
from ui.kit.traces import TraceKey, sentence_trace


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
        st.caption(t("ms_check_says"))
        st.markdown(finding)
        st.markdown(hint)


def shape_finding(error: core.InputError) -> str:
    """The shape check's words, without a guess at the cause (each case gives its own)."""
    return t("ms_shape_check", **error.params)


def titles(what_wrong: str, what_right: str) -> tuple[str, str]:
    return t("ms_wrong_title", what=what_wrong), t("ms_right_title", what=what_right)


def wrong_and_right(wrong, right, name: str) -> None:
    grid([(wrong, f"ms_{name}_wrong"), (right, f"ms_{name}_right")], per_row=2)


def top(*matrices) -> float:
    """One colour range for a wrong and a right panel: the largest |value| of both."""
    return float(max(np.nanmax(np.abs(M)) for M in matrices))


def wrong_axis(S_scaled, tokens, dec: int) -> None:
    wrong = mistakes.softmax_wrong_axis(S_scaled)
    right = softmax_rows(S_scaled)  # the engine's own softmax
    wrong_title, right_title = titles("softmax(S, axis=0)", "softmax(S, axis=1)")
    common = {"decimals": dec, "bound": top(wrong, right)}
    wrong_and_right(
        A_heatmap(wrong, tokens, title=wrong_title, **common),
        A_heatmap(right, tokens, title=right_title, **common),
        "axis",
    )
    rows, columns = (t("ms_sep").join(sum_notes(wrong, dec, axis=a)) for a in (1, 0))
    check_says(t("ms_col_sums", rows=rows, sums=columns), t("ms_axis_hint"))


def missing_transpose(Q, K, tokens, dec: int, base: int) -> None:
    n, d_k = Q.shape
    try:
        QK = mistakes.scores_without_transpose(Q, K)
    except core.InputError as error:
        check_says(shape_finding(error), t("ms_transpose_hint", n=n, d_k=d_k))
        return
    check_says(t("ms_transpose_fits", n=n), t("ms_transpose_hint", n=n, d_k=d_k))
    wrong_title, right_title = titles("Q K", "Q Kᵀ")
    common = {"decimals": dec, "bound": top(QK, Q @ K.T)}
    wrong_and_right(
        heatmap(QK, tokens, indices(d_k, base), title=wrong_title, **common),
        heatmap(Q @ K.T, tokens, tokens, title=right_title, **common),
        "tr",
    )


def mask_after_softmax(numbers: dict, tokens, dec: int) -> None:
    wrong, right, forbidden = numbers["wrong_order"], numbers["right_order"], ~numbers["causal"]
    st.markdown(t("ms_order_text", diff=num(float(np.abs(wrong - right).max()), dec)))
    wrong_title, right_title = titles(t("ms_order_wrong"), t("ms_order_right"))
    common = {"decimals": dec, "forbidden": forbidden, "bound": top(wrong, right)}
    wrong_and_right(
        A_heatmap(wrong, tokens, title=wrong_title, **common),
        A_heatmap(right, tokens, title=right_title, **common),
        "order",
    )
    rows = t("ms_sep").join(sum_notes(wrong, dec))
    check_says(t("ms_order_check", rows=rows), t("ms_order_hint"))


def d_k_and_d_v(numbers: dict, data, settings) -> None:
    d_k, d_v, h, n = data.d_k, numbers["d_v"], settings.n_heads, data.n
    wrong, right, tokens = numbers["wrong_dv"], numbers["right_dv"], list(data.tokens)
    diff = num(float(np.abs(wrong - right).max()), settings.decimals)
    st.markdown(t("ms_dv_text", d_k=d_k, d_v=d_v, diff=diff))
    wrong_title, right_title = titles(f"softmax(S / √{d_v})", f"softmax(S / √{d_k})")
    common = {"scale": "unit", "decimals": settings.decimals, "bound": top(wrong, right)}
    wrong_and_right(
        heatmap(wrong, tokens, tokens, title=wrong_title, **common),
        heatmap(right, tokens, tokens, title=right_title, **common),
        "dv",
    )
    try:
        core.check_matmul((n, h * d_v), (h * d_k, settings.d_model), "concat", "W_O")
    except core.InputError as error:
        check_says(shape_finding(error), t("ms_dv_fix", wrong=h * d_k, rows=h * d_v))
