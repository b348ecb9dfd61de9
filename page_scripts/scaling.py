"""Why √d_k: dot-product variance grows with d_k; scaling keeps the order; weights are relative;
the softmax saturates and its gradient vanishes."""

import streamlit as st

from ui.shell.page_header import page_header
from ui.shell.sidebar import current
from ui.views import scaling

settings = current()
page_header()
st.latex(
    r"\begin{aligned}\operatorname{Var}(q \cdot k) &= "
    r"\sum_{c=1}^{d_k} \operatorname{Var}(q_c k_c) = d_k"
    r"\\ \operatorname{Var}\!\left(\frac{q \cdot k}{\sqrt{d_k}}\right) &= 1\end{aligned}"
)
d_k = scaling.variance_experiment(settings.decimals)
scaling.order_kept(d_k, settings.base, settings.decimals)
curves = scaling.sharpness()
scaling.gradient(curves, settings.decimals)
