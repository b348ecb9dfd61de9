"""Bar charts: a class's answers, the next token's probabilities, grouped series."""

import plotly.graph_objects as go

from ui.figures.palette import BLUE, GREEN, LINE_COLOURS, MASKED_GREY, SharedFigure
from ui.kit.escape import plotly_text
from ui.kit.shared_cache import shared


def answer_bars(labels, counts, right: int | None, title: str) -> go.Figure:
    """How many chose each answer; the right one green once it is revealed."""
    colours = [GREEN if i == right else BLUE for i in range(len(labels))]
    top = max([*counts, 1])
    return _bars(labels, list(counts), colours, [str(c) for c in counts], title,
                 {"range": [0, top * 1.25], "dtick": max(1, top // 5)}, 260)  # fmt: skip


def probability_bars(labels, p, kept, title: str, y_title: str) -> go.Figure:
    """Each candidate's probability, in order; the ones the rules cut drawn grey."""
    colours = [BLUE if keep else MASKED_GREY for keep in kept]
    y_axis = {"range": [0, max(1e-9, max(p)) * 1.25], "title": plotly_text(y_title)}
    return _bars(labels, [float(v) for v in p], colours, [f"{v:.3f}" for v in p], title,
                 y_axis, 320)  # fmt: skip


@shared(max_entries=40)
def _bars(labels, heights, colours, texts, title: str, y_axis: dict, height: int) -> go.Figure:
    """One bar per category, its value printed over it: built once per distinct call and shared
    between sessions, as the heatmaps are (Plotly's checks cost ~7 ms a figure)."""
    bar = go.Bar(
        x=[plotly_text(label) for label in labels],
        y=heights,
        marker_color=colours,
        text=texts,
        textposition="outside",
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
    """Bars side by side at each label, one colour per named series (positive up, negative
    down): each layer's attention and feed-forward shares of a logit. Shared: never change it."""
    fig = SharedFigure()
    for i, (name, values) in enumerate(series.items()):
        fig.add_trace(
            go.Bar(
                x=list(labels),
                y=[float(v) for v in values],
                name=plotly_text(name),
                marker_color=LINE_COLOURS[i % len(LINE_COLOURS)],
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
