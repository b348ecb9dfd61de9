"""Loop vs matrix: the per-token loop fills the output row by row; the matrix does it at once."""

import numpy as np
import streamlit as st

import core
from ui.compute import loop_for, trace_for
from ui.feedback import show_input_error
from ui.figures import heatmap
from ui.i18n import t
from ui.layout import plot
from ui.loop_vs_matrix import timing_table
from ui.measure_panel import arriving
from ui.settings import current

settings = current()
st.title(t("loop_title"))
st.markdown(t("loop_intro"))
try:
    data = trace_for(settings)
    loop = loop_for(settings)
except core.InputError as error:
    show_input_error(error, box="sentence", mode=settings.mode)
    st.stop()

n = data.n
k = st.slider(t("loop_rows_done"), 0, n, n, key="loop_rows")
partial = np.where(np.arange(n)[:, None] < k, loop.output, np.nan)  # rows not computed yet: blank
tokens, dims = list(data.tokens), [str(c) for c in range(settings.d_model)]
left, right = st.columns(2)
common = {"decimals": settings.decimals, "row_title": t("axis_token"), "col_title": t("axis_dim")}
with left:
    plot(
        heatmap(
            partial,
            tokens,
            dims,
            title=t("loop_panel", k=k, n=n),
            focus_row=k - 1 if k else None,
            **common,
        ),
        "fig_loop",
    )
with right:
    plot(heatmap(data.trace.output, tokens, dims, title=t("matrix_panel"), **common), "fig_matrix")
diff = float(np.max(np.abs(loop.output - data.trace.output)))
st.success(t("max_diff", diff=f"{diff:.2e}"))

st.subheader(t("timing_title"))
st.caption(t("timing_intro"))
arriving(
    ("loop_times", settings.d_model, settings.n_heads),
    "loop_times",
    {"d_model": settings.d_model, "n_heads": settings.n_heads},
    timing_table,
)
st.caption(t("timing_small_n"))
