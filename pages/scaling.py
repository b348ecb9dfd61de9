"""Why √d_k: dot-product variance grows with d_k; the softmax saturates; the gradient vanishes."""

import math

import streamlit as st

from ui.compute import SCALING_D_K, dot_product_samples, sharpness_curves
from ui.figures import histograms, line_chart
from ui.i18n import t
from ui.layout import grid, plot
from ui.settings import current

N_KEYS = 16
settings = current()
st.title(t("sc_title"))
st.markdown(t("sc_intro"))
st.latex(
    r"\operatorname{Var}(q \cdot k) = \sum_{c=1}^{d_k} \operatorname{Var}(q_c k_c) = d_k"
    r"\qquad \operatorname{Var}\!\left(\frac{q \cdot k}{\sqrt{d_k}}\right) = 1"
)
left, right = st.columns(2)
d_k = left.select_slider(t("sc_d_k"), SCALING_D_K, value=64, key="sc_d_k")
samples = right.select_slider(
    t("sc_samples"), (1000, 5000, 20000, 50000), value=20000, key="sc_samples"
)
s = dot_product_samples(d_k, samples)
raw, scaled = float(s.var()), float((s / math.sqrt(d_k)).var())
series = {
    t("sc_hist_raw", var=f"{raw:.2f}"): s,
    t("sc_hist_scaled", var=f"{scaled:.2f}"): s / math.sqrt(d_k),
}
plot(histograms(series, title=t("sc_hist_title"), x_title="score"), "sc_hist")
st.success(t("sc_measured", samples=samples, d_k=d_k, raw=f"{raw:.2f}", scaled=f"{scaled:.3f}"))

st.subheader(t("sc_sharp_title", n=N_KEYS))
st.markdown(t("sc_sharp_text"))
curves = sharpness_curves(N_KEYS)


def lines(index: int, y_title: str, key: str):
    series = {
        t("sc_without"): [c[index] for c in curves[False]],
        t("sc_with"): [c[index] for c in curves[True]],
    }
    return line_chart(
        SCALING_D_K, series, title=y_title, x_title="d_k", y_title=y_title, log_y=False
    ), key


grid([lines(0, t("sc_max_weight"), "sc_max"), lines(1, t("sc_entropy"), "sc_entropy")], per_row=2)
st.subheader(t("sc_grad_title"))
st.markdown(t("sc_grad_text"))
grid([lines(2, t("sc_gradient"), "sc_grad")], per_row=2)
