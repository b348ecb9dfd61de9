"""The mistakes page: each mistake beside the right result, from numbers computed once per
sentence and settings (core/mistakes.py holds the mistakes themselves)."""

import numpy as np
import streamlit as st

import core
from core import mistakes
from ui.compute import TraceKey, sentence_trace
from ui.figures import A_heatmap, heatmap
from ui.i18n import error_text, t
from ui.layout import grid
from ui.numbers import num


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


def wrong_and_right(wrong, right, name: str) -> None:
    grid([(wrong, f"ms_{name}_wrong"), (right, f"ms_{name}_right")], per_row=2)


def wrong_axis(S_scaled, tokens, dec: int) -> None:
    wrong = mistakes.softmax_wrong_axis(S_scaled)
    right = mistakes.softmax_along(S_scaled, axis=-1)
    wrong_and_right(
        A_heatmap(wrong, tokens, title=f"{t('ms_wrong')}: softmax(S, axis=0)", decimals=dec),
        A_heatmap(right, tokens, title=f"{t('ms_right')}: softmax(S, axis=1)", decimals=dec),
        "axis",
    )
    st.caption(t("ms_col_sums", sums=", ".join(num(v, dec) for v in wrong.sum(axis=0))))


def missing_transpose(Q, K, tokens, dec: int) -> None:
    n = Q.shape[0]
    try:
        QK = mistakes.scores_without_transpose(Q, K)
    except core.InputError as error:
        st.error(error_text(error))
        st.code(f"Q {list(Q.shape)} @ Kᵀ {list(K.T.shape)} → S {[n, n]}", language=None)
        return
    st.warning(t("ms_transpose_fits", n=n))
    wrong_and_right(
        heatmap(QK, tokens, None, title=f"{t('ms_wrong')}: Q K", decimals=dec),
        heatmap(Q @ K.T, tokens, tokens, title=f"{t('ms_right')}: Q Kᵀ", decimals=dec),
        "tr",
    )


def mask_after_softmax(numbers: dict, tokens, dec: int) -> None:
    wrong, right, forbidden = numbers["wrong_order"], numbers["right_order"], ~numbers["causal"]
    st.markdown(t("ms_order_text", diff=f"{np.abs(wrong - right).max():.4f}"))
    common = {"decimals": dec, "forbidden": forbidden}
    wrong_and_right(
        A_heatmap(wrong, tokens, title=f"{t('ms_wrong')}: mask(softmax(S))", **common),
        A_heatmap(right, tokens, title=f"{t('ms_right')}: softmax(mask(S))", **common),
        "order",
    )


def d_k_and_d_v(numbers: dict, data, settings) -> None:
    d_k, d_v, h, n = data.d_k, numbers["d_v"], settings.n_heads, data.n
    wrong, right, tokens = numbers["wrong_dv"], numbers["right_dv"], list(data.tokens)
    st.markdown(t("ms_dv_text", d_k=d_k, d_v=d_v, diff=f"{np.abs(wrong - right).max():.4f}"))
    common = {"scale": "unit", "decimals": settings.decimals}
    wrong_and_right(
        heatmap(wrong, tokens, tokens, title=f"{t('ms_wrong')}: softmax(S / √{d_v})", **common),
        heatmap(right, tokens, tokens, title=f"{t('ms_right')}: softmax(S / √{d_k})", **common),
        "dv",
    )
    try:
        core.check_matmul((n, h * d_v), (h * d_k, settings.d_model), "concat", "W_O")
    except core.InputError as error:
        st.error(error_text(error))
        st.caption(t("ms_dv_fix", rows=h * d_v))
