"""Placing figures on a page: one chart, or a grid of small multiples."""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from ui.figures.alt_text import alt_html
from ui.figures.heatmaps import heatmap
from ui.figures.palette import HEAD_COLOURS
from ui.kit.i18n import t
from ui.kit.number_text import shown_index, sub
from ui.kit.settings import BY_URL

PROJECTOR_HEIGHT = 410  # px: a chart under the projector band fits a 1280 x 720 screen
# Projector sizes (?big=true), read from the back row: every text of a chart is set here, none
# left to Streamlit's theme, which sizes ticks in rem of the page's root font as it was when the
# chart mounted (12 px before the projector's style applied, 15.75 px after: the flake).
BIG_TEXT_PX = 18  # any chart's text on a projector: the back row reads 18 px (issue 24)
BIG_TITLE_PX = 20
FILL_CELL_PX = 24  # a step's chart that fills the screen: cell values with at most 8 a side
FILL_DENSE_CELL_PX = 18  # more than 8 a side
FILL_TEXT_PX = 18  # its ticks, axis titles, colour bar, legend and row sums
FILL_TITLE_PX = 24
FILL_SIDE = 8
# wider heatmaps print numbers too small on a phone: there they hide (style.py). At 7 columns,
# a phone's 366 px less the row labels and the colour bar left its cells' values at 5-6 px (the
# reading of /generate's attention map on an 8-token prompt)
DENSE_COLUMNS = 6


# no Plotly toolbar: on a phone it sits over the chart's title, and a learner reads values by
# hovering or tapping, which needs none of its buttons
CONFIG = {"displaylogo": False, "displayModeBar": False}


def _dense(fig) -> bool:
    """A heatmap that prints its values in more than DENSE_COLUMNS columns."""
    for trace in fig.data:
        if trace.type == "heatmap" and trace.text is not None and trace.z is not None:
            return np.shape(trace.z)[-1] > DENSE_COLUMNS
    return False


def _side(trace) -> int:
    return max(np.shape(trace.z)) if trace.z is not None else 0


def projector_figure(fig, fill: bool = False):
    """A copy of ``fig`` sized for a projector, every text of it set (ticks, axis titles, colour
    bars, legend, notes and cell values). With ``fill`` the sizes of a step's chart that fills
    the screen: no fixed height (its box's CSS gives it the free height), cells that need not be
    square, values of FILL_CELL_PX with at most FILL_SIDE a side, and the title held over the
    plot in pixels (a fraction of a height no longer known would push it out)."""
    fig = go.Figure(fig)  # a copy: figures may be shared between sessions
    text, title = (FILL_TEXT_PX, FILL_TITLE_PX) if fill else (BIG_TEXT_PX, BIG_TITLE_PX)
    fig.update_layout(font={"size": text}, legend_font_size=text)
    fig.update_layout(title_font_size=title)
    for axes in (fig.update_xaxes, fig.update_yaxes):  # the row sums' right-hand axis too
        axes(tickfont_size=text, title_font_size=text)
    fig.update_annotations(font_size=text)
    for trace in fig.data:
        if trace.type != "heatmap":
            continue
        cells = BIG_TEXT_PX
        if fill:
            cells = FILL_CELL_PX if _side(trace) <= FILL_SIDE else FILL_DENSE_CELL_PX
        trace.update(textfont_size=cells, colorbar_tickfont_size=text)
    if not fill:
        if fig.layout.height and fig.layout.height > PROJECTOR_HEIGHT:  # whole on a 720p screen
            fig.update_layout(height=PROJECTOR_HEIGHT)
        _keep_text_rows(fig)
        return fig
    bar_above = any(t.type == "heatmap" and t.colorbar.orientation == "h" for t in fig.data)
    notes = any(a.xref == "x domain" for a in fig.layout.annotations)  # the row sums
    margin = {"t": 100 if bar_above else 90 if fig.layout.showlegend or _legend(fig) else 56,
              "r": 76 if notes else 10}  # fmt: skip
    fig.update_layout(height=None, autosize=True, margin=margin)
    fig.update_yaxes(scaleanchor=None)  # the free height and width, not square cells
    # the title just over the plot (over its colour bar, or its legend), at any height
    over = margin["t"] - 46
    fig.update_layout(title={"y": 1, "yref": "paper", "yanchor": "bottom", "pad": {"b": over}})
    return fig


def _keep_text_rows(fig) -> None:
    """A heatmap of text to read (the logit lens's pieces: meta text_rows) keeps each row the
    height of its projector text, rather than the 720p cap that would overlap them; it and any
    figure with its column labels on top (meta labels_on_top) get room for the title over
    them."""
    meta = fig.layout.meta if isinstance(fig.layout.meta, dict) else {}
    top = BIG_TITLE_PX + BIG_TEXT_PX + 60
    if meta.get("labels_on_top"):
        fig.update_layout(height=fig.layout.height + top - 70, margin={"t": top})
    if not meta.get("text_rows"):
        return
    rows = max(np.shape(trace.z)[0] for trace in fig.data if trace.type == "heatmap")
    fig.update_layout(height=rows * (BIG_TEXT_PX + 10) + top + 20, margin={"t": top})


def _legend(fig) -> bool:
    return any(getattr(t, "showlegend", None) for t in fig.data)


def _big() -> bool:
    """Projector mode, as the sidebar's switch (its row in the settings table) left it."""
    return bool(st.session_state.get(BY_URL["big"].state_key))


def plot(fig, key: str, pick: bool = False, fill: bool = False) -> None:
    """Draw a figure; in projector mode (the sidebar's large text) its text grows too, and with
    ``fill`` (a walkthrough step's chart) it takes the screen's free height. With ``pick`` a
    click selects a point (ui/figures/pickable.py reads it from the session state's ``key``).
    Every chart gets its text alternative here (ui/figures/alt_text.py): a name written from its
    numbers and the numbers as a table, in a <details> under it."""
    events = {"on_select": "rerun", "selection_mode": "points"} if pick else {}
    with st.container(key=f"chart_{key}"):  # the a11y script finds the chart and its name here
        if _big():
            box = st.container(key=f"fill_{key}") if fill else st  # its height: style.py
            height = "stretch" if fill else "content"
            box.plotly_chart(projector_figure(fig, fill), width="stretch", height=height,
                             key=key, config=CONFIG, **events)  # fmt: skip
        else:
            box = st.container(key=f"dense_{key}") if _dense(fig) else st
            box.plotly_chart(fig, width="stretch", key=key, config=CONFIG, **events)
        st.html(alt_html(fig))


def plot_for_screens(wide, phone, key: str) -> None:
    """One chart drawn for a laptop or projector (``wide``) and another for a phone (``phone``,
    a callable made only when needed): style.py shows each on its screens only. A projector
    shows the wide one alone."""
    if _big():
        plot(wide, key)
        return
    with st.container(key=f"screen_wide_{key}"):
        plot(wide, key)
    with st.container(key=f"screen_phone_{key}"):
        plot(phone(), f"{key}_phone")


def grid(items, per_row: int = 4, fill: bool = False) -> None:
    """(figure, key) pairs laid out ``per_row`` to a row (``fill``: as plot's)."""
    items = list(items)
    for start in range(0, len(items), per_row):
        for column, (fig, key) in zip(st.columns(per_row), items[start : start + per_row]):
            with column:
                plot(fig, key, fill=fill)


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
