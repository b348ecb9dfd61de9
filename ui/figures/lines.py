"""Line charts and histograms: series against a shared x, one colour each, and each line its
own dash and marker as well (told apart without colour)."""

import numpy as np
import plotly.graph_objects as go

from ui.figures.palette import (
    BAR_PATTERNS,
    BLUE,
    GREEN,
    LINE_COLOURS,
    LINE_DASHES,
    LINE_SYMBOLS,
    VERMILLION,
    SharedFigure,
)
from ui.kit.escape import plotly_text
from ui.kit.shared_cache import shared


@shared(max_entries=80)
def line_chart(
    xs,
    series: dict,
    *,
    title: str,
    x_title: str,
    y_title: str,
    log: bool = True,
    log_y: bool | None = None,
    colours=None,
    dashes=None,
    marker_size: int | None = None,
    tick_every_x: bool = True,
    y_range=None,
    marks=(),
    x_labels=None,
):
    """Lines over xs, one per named series (log-log by default; ``log_y`` overrides the y axis;
    ``x_labels``: one tick label per x, in place of the numbers). ``colours``: one per series
    (e.g. from SERIES), else LINE_COLOURS in order; ``dashes``: one per series ("solid", "dash"),
    else LINE_DASHES in order; each series' marker: ``_symbols``;
    ``marks``: (x, label) pairs, each a dotted vertical line with its label at the top. Shared
    between sessions: never change the figure returned."""
    log_y = log if log_y is None else log_y
    xs = list(xs)
    fig = SharedFigure()
    colours, dashes = list(colours or ()), list(dashes or ())
    dashes = [dashes[i] if i < len(dashes) else LINE_DASHES[i % len(LINE_DASHES)]
              for i in range(len(series))]  # fmt: skip
    for i, ((name, ys), symbol) in enumerate(zip(series.items(), _symbols(dashes))):
        colour = colours[i] if i < len(colours) else LINE_COLOURS[i % len(LINE_COLOURS)]
        fig.add_trace(_line(xs, ys, name, colour, (dashes[i], symbol), marker_size))
    fig.update_layout(
        title={"text": plotly_text(title), "x": 0},
        height=380,
        xaxis={"title": x_title, "type": "log" if log else "linear"}
        | _x_ticks(xs, tick_every_x, x_labels),
        yaxis={
            "title": y_title,
            "type": "log" if log_y else "linear",
            **({"dtick": 1, "exponentformat": "power"} if log_y else {}),
            **({"range": list(y_range)} if y_range is not None else {}),
        },
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        legend={"orientation": "h", "y": -0.25},
    )
    for x, label in marks:
        fig.add_vline(x=x, line_dash="dot", line_color="#888", annotation_text=plotly_text(label),
                      annotation_position="top right")  # fmt: skip
    return fig


def _x_ticks(xs: list, every: bool, labels) -> dict:
    """Every x ticked (with its label in place of the number, given ``labels``), or Plotly's."""
    if labels:
        return {"tickvals": xs, "ticktext": list(labels)}
    return {"tickvals": xs} if every else {}


def _symbols(dashes: list) -> list:
    """Each line's marker: LINE_SYMBOLS in order, or the next one after it that no earlier line
    of the same dash has, so that no two lines share both their dash and their marker (up to
    len(LINE_SYMBOLS) lines of one dash)."""
    taken, symbols = set(), []
    for i, dash in enumerate(dashes):
        k = i % len(LINE_SYMBOLS)
        for _ in range(len(LINE_SYMBOLS) - 1):
            if (dash, k) not in taken:
                break
            k = (k + 1) % len(LINE_SYMBOLS)
        taken.add((dash, k))
        symbols.append(LINE_SYMBOLS[k])
    return symbols


def _line(xs, ys, name: str, colour: str, style: tuple, marker_size: int | None) -> go.Scatter:
    """One series: ``style`` its (dash, marker symbol)."""
    dash, symbol = style
    marker = {"color": colour, "symbol": symbol, **({"size": marker_size} if marker_size else {})}
    return go.Scatter(x=xs, y=list(ys), mode="lines+markers", name=plotly_text(name),
                      line={"color": colour, "dash": dash}, marker=marker)  # fmt: skip


@shared(max_entries=40)
def histograms(
    series: dict, *, title: str, x_title: str, bins: int = 60, colours=None
) -> go.Figure:
    """Overlaid histograms of named samples (binned here, so the payload stays small), each its
    colour and its fill pattern (BAR_PATTERNS in order). Shared between sessions: never change
    the figure returned."""
    fig = SharedFigure()
    everything = np.concatenate([np.asarray(v) for v in series.values()])
    edges = np.linspace(np.percentile(everything, 0.5), np.percentile(everything, 99.5), bins + 1)
    centres = (edges[:-1] + edges[1:]) / 2
    looks = zip(colours or (VERMILLION, BLUE, GREEN), BAR_PATTERNS)
    for (name, values), (colour, pattern) in zip(series.items(), looks):
        counts, _ = np.histogram(values, bins=edges, density=True)
        fig.add_trace(
            go.Bar(
                x=centres,
                y=counts,
                name=plotly_text(name),
                opacity=0.75,
                marker_color=colour,
                marker_pattern_shape=pattern,
                width=edges[1] - edges[0],
            )
        )
    fig.update_layout(
        barmode="overlay",
        title={"text": plotly_text(title), "x": 0},
        height=340,
        xaxis={"title": x_title},
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        legend={"orientation": "h", "y": -0.25},
    )
    return fig
