"""Why Q and K get their own projections: X Xᵀ is symmetric with a strong diagonal, Q Kᵀ need not
be; and Q, K, V as a soft lookup against a hard one."""

import streamlit as st

from ui.kit.i18n import t
from ui.shell.page_header import page_header
from ui.shell.sidebar import current
from ui.views import projections
from ui.work.traces import trace_or_stop

settings = current()
page_header()
data = trace_or_stop(settings)
st.latex(
    r"\begin{aligned} S &= X X^\top \\ S &= (X W_Q)(X W_K)^\top \\ &= X\,(W_Q W_K^\top)\,X^\top"
    r"\end{aligned}"
)
if settings.mask != "none":
    st.caption(t("projections.no_mask"))
head = projections.head_picker(data, settings)
pair = projections.pair_for(data, head)
projections.scores_side_by_side(data, pair, settings, head)
projections.weights_side_by_side(data, pair, settings, head)
projections.lookup_section(data, settings, head)
