"""Loop vs matrix: the per-token loop fills the output row by row; the matrix does it at once."""

import streamlit as st

import core
from ui.kit.errors import show_input_error
from ui.kit.i18n import t
from ui.kit.measure_panel import arriving
from ui.shell.page_header import page_header
from ui.shell.sidebar import current
from ui.views.loop_vs_matrix import rows_side_by_side, timing_table
from ui.work.traces import loop_for, trace_for

settings = current()
page_header()
try:
    data = trace_for(settings)
    loop = loop_for(settings)
except core.InputError as error:
    show_input_error(error, box="sentence", mode=settings.mode)
    st.stop()

rows_side_by_side(data, loop, settings)

st.subheader(t("loop_vs_matrix.timing_title"))
st.caption(t("loop_vs_matrix.timing_intro"))
arriving(
    ("loop_times", settings.d_model, settings.n_heads),
    "loop_times",
    {"d_model": settings.d_model, "n_heads": settings.n_heads},
    timing_table,
)
st.caption(t("loop_vs_matrix.timing_small_n"))
