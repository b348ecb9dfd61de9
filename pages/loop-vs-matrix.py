"""Loop vs matrix: the per-token loop fills the output row by row; the matrix does it at once."""

import numpy as np
import pandas as pd
import streamlit as st

import core
from ui.compute import loop_for, loop_vs_matrix_times, trace_for
from ui.feedback import show_input_error
from ui.figures import heatmap, line_chart
from ui.i18n import t
from ui.layout import plot
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
with st.spinner("…"):
    rows = loop_vs_matrix_times(settings.d_model, settings.n_heads)
table = pd.DataFrame(rows)
names = {"matrix": t("col_matrix"), "loop": t("col_loop"), "python": t("col_python")}
shown = pd.DataFrame({t("col_n"): table["n"]})
for name, column in names.items():
    shown[column] = table[name].map(lambda s: "—" if np.isnan(s) else f"{s * 1e3:.3f} ms")
shown[t("col_speedup_loop")] = (table["loop"] / table["matrix"]).map("{:.0f}×".format)
shown[t("col_speedup_python")] = (table["python"] / table["matrix"]).map(
    lambda r: "—" if np.isnan(r) else f"{r:.0f}×"
)
st.dataframe(shown, hide_index=True, width="stretch")
series = {column: table[name] * 1e3 for name, column in names.items()}
plot(
    line_chart(
        table["n"], series, title=t("timing_title"), x_title=t("col_n"), y_title=t("time_axis")
    ),
    "fig_times",
)
st.caption(t("timing_small_n"))
