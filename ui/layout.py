"""Placing figures on a page: one chart, or a grid of small multiples."""

import plotly.graph_objects as go
import streamlit as st

from ui.figures import HEAD_COLOURS
from ui.i18n import t

PROJECTOR_HEIGHT = 410  # px: a chart under the projector band fits a 1280 x 720 screen


def plot(fig, key: str, pick: bool = False) -> None:
    """Draw a figure; in projector mode (the sidebar's large text) its text grows too. With
    ``pick`` a click selects a point (ui/cell_pick.py reads it from the session state's ``key``)."""
    if st.session_state.get("big"):
        fig = go.Figure(fig)  # a copy: figures may be shared between sessions
        fig.update_layout(font={"size": 17}, title_font_size=20)
        fig.update_traces(textfont_size=17, selector={"type": "heatmap"})
        fig.update_yaxes(tickfont_size=17)  # the row sums' right-hand axis too
        fig.update_annotations(font_size=16)
        if fig.layout.height and fig.layout.height > PROJECTOR_HEIGHT:  # whole on a 720p screen
            fig.update_layout(height=PROJECTOR_HEIGHT)
    events = {"on_select": "rerun", "selection_mode": "points"} if pick else {}
    st.plotly_chart(fig, width="stretch", key=key, config={"displaylogo": False}, **events)


def grid(items, per_row: int = 4) -> None:
    """(figure, key) pairs laid out ``per_row`` to a row."""
    items = list(items)
    for start in range(0, len(items), per_row):
        for column, (fig, key) in zip(st.columns(per_row), items[start : start + per_row]):
            with column:
                plot(fig, key)


def head_bands(n_heads: int, width: int) -> list[tuple]:
    """Coloured column bands marking which columns belong to which head."""
    return [
        (h * width, (h + 1) * width, HEAD_COLOURS[h % len(HEAD_COLOURS)], f"{t('head')} {h}")
        for h in range(n_heads)
    ]


def head_grid(
    stack, row_labels, col_labels, title: str, key: str, per_row: int = 4, **heatmap_args
) -> None:
    """One heatmap per head (stack [h, rows, cols]), each titled in its head's colour.

    ``title`` may use {h} for the head number.
    """
    from ui.figures import heatmap

    figures = (
        (
            heatmap(
                M,
                row_labels,
                col_labels,
                title=title.format(h=h),
                title_colour=HEAD_COLOURS[h % len(HEAD_COLOURS)],
                **heatmap_args,
            ),
            f"{key}_{h}",
        )
        for h, M in enumerate(stack)
    )
    grid(figures, per_row=per_row)
