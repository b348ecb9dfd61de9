"""The loop-vs-matrix page: the loop's rows one at a time beside the matrix's, and the measured
times (a table and a chart from measure/loop_times.py's rows)."""

import numpy as np
import pandas as pd
import streamlit as st

from ui.figures.axes import token_axes
from ui.figures.heatmaps import heatmap
from ui.figures.lines import line_chart
from ui.figures.place import plot
from ui.kit.i18n import t
from ui.kit.number_text import indices, power_of_ten
from ui.kit.player import player


def rows_side_by_side(data, loop, settings) -> None:
    """A player over the loop's rows (opening at the first) beside the matrix's output, both on
    one colour range, then the largest difference between them, explained."""
    n, matrix = data.n, data.trace.output
    bound = float(np.max(np.abs(matrix))) or 1.0
    common = {
        **token_axes(settings.decimals),
        "bound": bound,
    }
    tokens, dims = list(data.tokens), indices(settings.d_model, settings.base)

    def draw(i: int) -> None:
        k = i + 1  # rows computed so far
        pending = np.broadcast_to(np.arange(n)[:, None] >= k, loop.output.shape)  # not yet
        partial = np.where(pending, np.nan, loop.output)
        left, right = st.columns(2)
        with left:
            title = t("loop_vs_matrix.loop_panel", k=k, n=n, row=tokens[i])
            fig = heatmap(
                partial,
                tokens,
                dims,
                title=title,
                focus_row=i,
                forbidden=pending,
                forbidden_text="…",
                **common,
            )
            plot(fig, "fig_loop")
        with right:
            plot(
                heatmap(matrix, tokens, dims, title=t("shell.matrix_panel"), **common), "fig_matrix"
            )

    player(t("loop_vs_matrix.loop_rows_done"), n, "loop_rows", draw, first=1)
    diff = float(np.max(np.abs(loop.output - matrix)))
    st.success(t("loop_vs_matrix.max_diff", diff=power_of_ten(diff)))
    st.caption(
        t("loop_vs_matrix.max_diff_zero")
        if diff == 0
        else t("loop_vs_matrix.max_diff_why", diff=power_of_ten(diff))
    )


def _ratio(r: float) -> str:
    """How many times slower: whole from 10 on, one decimal below (0.7×: pure Python can win at
    a tiny n, which "1×" hid)."""
    return "—" if np.isnan(r) else f"{r:.0f}×" if r >= 10 else f"{r:.1f}×"


def timing_table(rows: list[dict]) -> None:
    table = pd.DataFrame(rows).astype({"matrix": float, "loop": float, "python": float})
    names = {
        "matrix": t("loop_vs_matrix.col_matrix"),
        "loop": t("loop_vs_matrix.col_loop"),
        "python": t("loop_vs_matrix.col_python"),
    }
    shown = pd.DataFrame({t("loop_vs_matrix.col_n"): table["n"]})
    for name, column in names.items():
        shown[column] = table[name].map(lambda s: "—" if np.isnan(s) else f"{s * 1e3:.3f} ms")
    shown[t("loop_vs_matrix.col_speedup_loop")] = (table["loop"] / table["matrix"]).map(_ratio)
    shown[t("loop_vs_matrix.col_speedup_python")] = (table["python"] / table["matrix"]).map(_ratio)
    st.dataframe(shown, hide_index=True, width="stretch")
    st.caption(t("loop_vs_matrix.timing_precision"))
    series = {column: table[name] * 1e3 for name, column in names.items()}
    plot(
        line_chart(
            table["n"],
            series,
            title=t("loop_vs_matrix.timing_title"),
            x_title=t("loop_vs_matrix.col_n"),
            y_title=t("loop_vs_matrix.time_axis"),
        ),
        "fig_times",
    )
