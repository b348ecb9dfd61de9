"""The loop-vs-matrix page's measured times: a table and a chart from ui/loop_times.py's rows."""

import numpy as np
import pandas as pd
import streamlit as st

from ui.figures import line_chart
from ui.i18n import t
from ui.layout import plot


def timing_table(rows: list[dict]) -> None:
    table = pd.DataFrame(rows).astype({"matrix": float, "loop": float, "python": float})
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
