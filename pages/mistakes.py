"""Common mistakes: wrong softmax axis, missing transpose, mask after softmax, d_k vs d_v."""

import numpy as np
import streamlit as st

import core
from core import mistakes
from ui.feedback import trace_or_stop
from ui.figures import heatmap, weights_heatmap
from ui.i18n import error_text, t
from ui.layout import grid
from ui.numbers import num
from ui.settings import current

settings = current()
st.title(t("ms_title"))
st.markdown(t("ms_intro"))
data = trace_or_stop(settings)
tr, tokens, dec, n, d_k = data.trace, list(data.tokens), settings.decimals, data.n, data.d_k
scaled = tr.S_scaled[0]  # [n, n], head 0
weights = {"scale": "unit", "decimals": dec}


st.subheader(t("ms_axis_title"))
st.markdown(t("ms_axis_text"))
wrong = mistakes.softmax_wrong_axis(scaled)
right = mistakes.softmax_along(scaled, axis=-1)
grid(
    [
        (
            weights_heatmap(
                wrong, tokens, title=f"{t('ms_wrong')}: softmax(S, axis=0)", decimals=dec
            ),
            "ms_axis_wrong",
        ),
        (
            weights_heatmap(
                right, tokens, title=f"{t('ms_right')}: softmax(S, axis=1)", decimals=dec
            ),
            "ms_axis_right",
        ),
    ],
    per_row=2,
)
st.caption(t("ms_col_sums", sums=", ".join(num(v, dec) for v in wrong.sum(axis=0))))

st.subheader(t("ms_transpose_title"))
st.markdown(t("ms_transpose_text"))
Q, K = tr.Q[0], tr.K[0]
try:
    QK = mistakes.scores_without_transpose(Q, K)
    st.warning(t("ms_transpose_fits", n=n))
    grid(
        [
            (heatmap(QK, tokens, None, title=f"{t('ms_wrong')}: Q K", decimals=dec), "ms_tr_wrong"),
            (
                heatmap(Q @ K.T, tokens, tokens, title=f"{t('ms_right')}: Q Kᵀ", decimals=dec),
                "ms_tr_right",
            ),
        ],
        per_row=2,
    )
except core.InputError as error:
    st.error(error_text(error))
    st.code(f"Q {list(Q.shape)} @ Kᵀ {list(K.T.shape)} → S {[n, n]}", language=None)

st.subheader(t("ms_order_title"))
causal = np.tril(np.ones((n, n), dtype=bool))
wrong = mistakes.mask_after_softmax(scaled, causal)
X, W, h = tr.X, data.W, settings.n_heads
loop = core.attention_loop(X, W, h, mask=causal).A[0]  # the per-token loop, head 0
st.markdown(t("ms_order_text", diff=f"{np.abs(wrong - loop).max():.4f}"))
grid(
    [
        (
            weights_heatmap(
                wrong,
                tokens,
                title=f"{t('ms_wrong')}: mask(softmax(S))",
                decimals=dec,
                forbidden=~causal,
            ),
            "ms_order_wrong",
        ),
        (
            weights_heatmap(
                loop,
                tokens,
                title=f"{t('ms_right')}: softmax(mask(S))",
                decimals=dec,
                forbidden=~causal,
            ),
            "ms_order_right",
        ),
    ],
    per_row=2,
)

st.subheader(t("ms_dv_title"))
d_v = 2 * d_k  # a layer whose values are wider than its keys
config = core.AttentionConfig(
    d_model=settings.d_model, n_heads=h, d_k=d_k, d_v=d_v, seed=settings.seed
)
W_dv = core.init_weights(config, n=n)
right = core.to_numpy(core.attention_loop(X, W_dv, h).A)[0]
S = core.to_numpy(core.attention(X, W_dv, h, keep={"S"}).S)[0]
wrong = mistakes.scale_by_d_v(S, d_v)
st.markdown(t("ms_dv_text", d_k=d_k, d_v=d_v, diff=f"{np.abs(wrong - right).max():.4f}"))
grid(
    [
        (
            heatmap(
                wrong, tokens, tokens, title=f"{t('ms_wrong')}: softmax(S / √{d_v})", **weights
            ),
            "ms_dv_wrong",
        ),
        (
            heatmap(
                right, tokens, tokens, title=f"{t('ms_right')}: softmax(S / √{d_k})", **weights
            ),
            "ms_dv_right",
        ),
    ],
    per_row=2,
)
try:
    core.check_matmul((n, h * d_v), (h * d_k, settings.d_model), "concat", "W_O")
except core.InputError as error:
    st.error(error_text(error))
    st.caption(t("ms_dv_fix", rows=h * d_v))
