"""Placing figures on a page: one chart, or a grid of small multiples."""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from ui.figures.charts import HEAD_COLOURS, heatmap
from ui.kit.i18n import t
from ui.kit.number_text import shown_index, sub

PROJECTOR_HEIGHT = 410  # px: a chart under the projector band fits a 1280 x 720 screen
DENSE_COLUMNS = 8  # wider heatmaps print numbers too small on a phone: there they hide (style.py)


# no Plotly toolbar: on a phone it sits over the chart's title, and a learner reads values by
# hovering or tapping, which needs none of its buttons
CONFIG = {"displaylogo": False, "displayModeBar": False}


def _dense(fig) -> bool:
    """A heatmap that prints its values in more than DENSE_COLUMNS columns."""
    for trace in fig.data:
        if trace.type == "heatmap" and trace.text is not None and trace.z is not None:
            return np.shape(trace.z)[-1] > DENSE_COLUMNS
    return False


def plot(fig, key: str, pick: bool = False) -> None:
    """Draw a figure; in projector mode (the sidebar's large text) its text grows too. With
    ``pick`` a click selects a point (ui/figures/pickable.py reads it from the session state's
    ``key``)."""
    if st.session_state.get("big"):
        fig = go.Figure(fig)  # a copy: figures may be shared between sessions
        fig.update_layout(font={"size": 17}, title_font_size=20)
        fig.update_traces(textfont_size=17, selector={"type": "heatmap"})
        fig.update_yaxes(tickfont_size=17)  # the row sums' right-hand axis too
        fig.update_annotations(font_size=16)
        if fig.layout.height and fig.layout.height > PROJECTOR_HEIGHT:  # whole on a 720p screen
            fig.update_layout(height=PROJECTOR_HEIGHT)
    events = {"on_select": "rerun", "selection_mode": "points"} if pick else {}
    box = st.container(key=f"dense_{key}") if _dense(fig) else st
    box.plotly_chart(fig, width="stretch", key=key, config=CONFIG, **events)


def grid(items, per_row: int = 4) -> None:
    """(figure, key) pairs laid out ``per_row`` to a row."""
    items = list(items)
    for start in range(0, len(items), per_row):
        for column, (fig, key) in zip(st.columns(per_row), items[start : start + per_row]):
            with column:
                plot(fig, key)


def head_bands(n_heads: int, width: int, base: int = 0) -> list[tuple]:
    """Coloured column bands marking which columns belong to which head (numbered from base)."""
    return [
        (
            h * width,
            (h + 1) * width,
            HEAD_COLOURS[h % len(HEAD_COLOURS)],
            f"{t('walkthrough.head')} {shown_index(h, base)}",
        )
        for h in range(n_heads)
    ]


PANEL_WIDTH = 950  # px: the main column at 1400 px with the sidebar open
CELL_WIDTH = 55  # px a cell needs to print "−0.00" at the default size
PANEL_CHROME = 160  # px of row labels, colour bar and padding beside the cells


def panels_per_row(count: int, columns: int, most: int = 4) -> int:
    """How many panels of ``columns`` cells fit side by side with their numbers readable, spread
    evenly over the rows (4 heads at 3 a row would leave one alone: 2 and 2 instead)."""
    fit = max(1, min(most, count, PANEL_WIDTH // (columns * CELL_WIDTH + PANEL_CHROME)))
    rows = -(-count // fit)
    return min(p for p in range(1, fit + 1) if -(-count // p) == rows)


def head_grid(
    stack,
    row_labels,
    col_labels,
    title: str,
    key: str,
    per_row: int | None = None,
    base: int = 0,
    **heatmap_args,
) -> None:
    """One heatmap per head (stack [h, rows, cols]), each titled in its head's colour, all on
    one colour range (the largest |value| over the heads) so that equal colours mean equal
    numbers from panel to panel.

    ``title`` may use {h} for the head number (from ``base``), {sh} for it as a subscript
    (Q{sh}: Q₀); ``per_row`` defaults to as many as fit with their numbers readable.
    """
    stack = np.asarray(stack)
    finite = stack[np.isfinite(stack)]
    bound = float(np.abs(finite).max()) if finite.size else 1.0
    heatmap_args.setdefault("bound", bound)
    per_row = per_row or panels_per_row(len(stack), stack.shape[-1])
    figures = (
        (
            heatmap(
                M,
                row_labels,
                col_labels,
                title=title.format(h=shown_index(h, base), sh=sub(h + base)),
                title_colour=HEAD_COLOURS[h % len(HEAD_COLOURS)],
                **heatmap_args,
            ),
            f"{key}_{h}",
        )
        for h, M in enumerate(stack)
    )
    grid(figures, per_row=per_row)
