"""Bar charts: a class's answers, the next token's probabilities, grouped series. What a bar's
colour says is said without colour too: a pattern, an outline, a mark in its label."""

import plotly.graph_objects as go

from ui.figures.palette import (
    BAR_PATTERNS,
    BLUE,
    CUT_OUTLINE,
    CUT_PATTERN,
    DARK_GREY,
    GREEN,
    LINE_COLOURS,
    MASKED_GREY,
    RIGHT_PATTERN,
    SharedFigure,
)
from ui.kit.escape import plotly_text
from ui.kit.shared_cache import shared

RIGHT_MARK = "✓"  # before the right answer's label, once revealed


def answer_bars(labels, counts, right: int | None, title: str) -> go.Figure:
    """How many chose each answer; the right one, once revealed, green, dotted and its label
    ticked ("✓ B")."""
    is_right = [i == right for i in range(len(labels))]
    labels = [f"{RIGHT_MARK} {label}" if r else label for label, r in zip(labels, is_right)]
    marker = {
        "color": [GREEN if r else BLUE for r in is_right],
        "pattern": {"shape": [RIGHT_PATTERN if r else "" for r in is_right]},
    }
    top = max([*counts, 1])
    return _bars(labels, list(counts), marker, [str(c) for c in counts], title,
                 {"range": [0, top * 1.25], "dtick": max(1, top // 5)}, 260)  # fmt: skip


def probability_bars(labels, p, kept, title: str, y_title: str) -> go.Figure:
    """Each candidate's probability, in order; the ones the rules cut grey, hatched and outlined
    in a darker grey."""
    marker = {
        "color": [BLUE if keep else MASKED_GREY for keep in kept],
        "pattern": {"shape": ["" if keep else CUT_PATTERN for keep in kept]},
        "line": {"color": [BLUE if keep else CUT_OUTLINE for keep in kept], "width": 1.5},
    }
    y_axis = {"range": [0, max(1e-9, max(p)) * 1.25], "title": plotly_text(y_title)}
    return _bars(labels, [float(v) for v in p], marker, [f"{v:.3f}" for v in p], title,
                 y_axis, 320)  # fmt: skip


@shared(max_entries=40)
def _bars(labels, heights, marker: dict, texts, title: str, y_axis: dict, height: int):
    """One bar per category (``marker``: Plotly's, a colour per bar and its pattern), its value
    printed over it in dark grey: built once per distinct call and shared between sessions, as
    the heatmaps are (Plotly's checks cost ~7 ms a figure)."""
    bar = go.Bar(
        x=[plotly_text(label) for label in labels],
        y=heights,
        marker=marker,
        text=texts,
        textposition="outside",
        textfont={"color": DARK_GREY},
        cliponaxis=False,
    )
    layout = {
        "title": {"text": plotly_text(title), "x": 0, "font": {"size": 15}},
        "yaxis": y_axis,
        "xaxis": {"type": "category"},
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
        "plot_bgcolor": "white",
    }
    return SharedFigure(bar, layout=layout)


@shared(max_entries=32)
def grouped_bars(labels, series: dict, title: str, x_title: str) -> go.Figure:
    """Bars side by side at each label, one colour and one pattern per named series (positive
    up, negative down): each layer's attention and feed-forward shares of a logit. Shared: never
    change it."""
    fig = SharedFigure()
    for i, (name, values) in enumerate(series.items()):
        fig.add_trace(
            go.Bar(
                x=list(labels),
                y=[float(v) for v in values],
                name=plotly_text(name),
                marker_color=LINE_COLOURS[i % len(LINE_COLOURS)],
                marker_pattern_shape=BAR_PATTERNS[i % len(BAR_PATTERNS)],
            )
        )
    fig.update_layout(
        title={"text": plotly_text(title), "x": 0},
        barmode="group",
        height=360,
        xaxis={"type": "category", "title": plotly_text(x_title), "tickangle": 0},
        yaxis={"zeroline": True},  # what is measured is in the title: no sideways axis title
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        legend={"orientation": "h", "y": -0.2},
        plot_bgcolor="white",
    )
    return fig
