"""Plotly figure builders: pure functions from arrays and labels to go.Figure (no Streamlit)."""

import math

import numpy as np
import plotly.graph_objects as go

from ui.escape import plotly_text
from ui.numbers import num, sum_notes
from ui.shared_cache import shared

SIGNED_SCALE = "RdBu_r"  # diverging, centred on 0: scores, projections, any signed matrix
WEIGHT_SCALE = "Viridis"  # sequential, colour-blind safe: weights in [0, 1]
MASKED_GREY = "#c8c8c8"
MAX_SIDE = 160  # larger matrices are block-averaged down to at most this many cells a side
MAX_TEXT_CELLS = 24  # print values in cells only when both sides are at most this
COLOURS = {"Q": "#1f77b4", "K": "#ff7f0e", "V": "#2ca02c", "O": "#9467bd"}  # one hue per role
HEAD_COLOURS = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#56B4E9",
    "#D55E00",
    "#F0E442",
    "#000000",
)  # Okabe-Ito: head h is always this colour


class SharedFigure(go.Figure):
    """A finished figure drawn by many sessions: its dict (what Streamlit sends) is made once."""

    def to_dict(self):
        if "_as_dict" not in self.__dict__:
            self.__dict__["_as_dict"] = super().to_dict()
        return self.__dict__["_as_dict"]


def block_mean(M: np.ndarray, max_side: int = MAX_SIDE) -> tuple[np.ndarray, int, int]:
    """M averaged over blocks so neither side exceeds max_side; NaN cells are ignored.

    Returns (reduced matrix, row block size, column block size).
    """
    rows, cols = M.shape
    br, bc = math.ceil(rows / max_side), math.ceil(cols / max_side)
    if br == 1 and bc == 1:
        return M, 1, 1
    pad = np.full((math.ceil(rows / br) * br, math.ceil(cols / bc) * bc), np.nan)
    pad[:rows, :cols] = M
    blocks = pad.reshape(pad.shape[0] // br, br, pad.shape[1] // bc, bc)
    with np.errstate(invalid="ignore"):
        counts = np.sum(~np.isnan(blocks), axis=(1, 3))
        sums = np.nansum(blocks, axis=(1, 3))
        reduced = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    return reduced, br, bc


def _format(values: np.ndarray, decimals: int) -> np.ndarray:
    """Cell text as printed on the page: true minus signs, never "−0.00"."""
    return np.vectorize(lambda v: num(v, decimals), otypes=[object])(values)


@shared(max_entries=160)
def heatmap(
    M,
    row_labels,
    col_labels,
    *,
    title: str = "",
    scale: str = "signed",
    decimals: int = 2,
    forbidden=None,
    forbidden_text: str = "−∞",
    row_title: str = "",
    col_title: str = "",
    focus_row: int | None = None,
    row_notes=None,
    bound: float | None = None,
    square: bool = False,
    title_colour: str | None = None,
    column_bands=None,
    outline=None,
) -> go.Figure:
    """A labelled heatmap: rows top to bottom in order, positions on the axes, tokens as tick text.

    ``scale`` "signed" is diverging around 0 (symmetric, ``bound`` to share a range between
    figures); "unit" is sequential on [0, 1] (A, masks). ``forbidden`` (bool, True = masked)
    cells are drawn grey with ``forbidden_text``. ``square`` keeps n x n cells square. Matrices
    larger than MAX_SIDE are block-averaged (the hover says which rows and columns a block covers).
    ``outline`` (rows, cols), each a (start, stop) pair, draws a box around those cells.

    Figures are shared between sessions (built once per distinct call): never change one.
    """
    M = np.asarray(M, dtype=np.float64)
    rows, cols = M.shape
    hidden = np.zeros_like(M, dtype=bool) if forbidden is None else np.asarray(forbidden, bool)
    hidden = np.broadcast_to(hidden, M.shape)
    shown = np.where(hidden | ~np.isfinite(M), np.nan, M)
    reduced, br, bc = block_mean(shown)
    small = br == 1 and bc == 1
    with_text = small and rows <= MAX_TEXT_CELLS and cols <= MAX_TEXT_CELLS
    gap = 1 if with_text else 0

    if scale == "unit":  # [0, 1]; long rows spread thin, so their scale tops out at the max
        top = 1.0 if with_text or not np.isfinite(reduced).any() else float(np.nanmax(reduced))
        colour = {"colorscale": WEIGHT_SCALE, "zmin": 0.0, "zmax": top}
    else:
        if bound is None:
            bound = float(np.nanmax(np.abs(reduced))) if np.isfinite(reduced).any() else 1.0
        colour = {"colorscale": SIGNED_SCALE, "zmid": 0.0, "zmin": -bound, "zmax": bound}

    x, y = np.arange(reduced.shape[1]), np.arange(reduced.shape[0])
    trace = go.Heatmap(
        z=reduced.astype(np.float32),
        x=x,
        y=y,
        xgap=gap,
        ygap=gap,
        colorbar={"thickness": 12, "len": 0.9},
        **colour,
    )
    if with_text:
        trace.text = _format(M, decimals)
        trace.texttemplate = "%{text}"
        trace.hovertemplate = "%{y} → %{x}: %{z:.6f}<extra></extra>"
    else:
        trace.hovertemplate = (
            f"rows %{{y}}×{br} · cols %{{x}}×{bc}: %{{z:.4f}}<extra></extra>"
            if not small
            else "%{y} → %{x}: %{z:.4f}<extra></extra>"
        )
    fig = SharedFigure(trace)

    if small and hidden.any():  # masked cells: grey, with their symbolic value written in
        masked = go.Heatmap(
            z=np.where(hidden, 1.0, np.nan).astype(np.float32),
            x=x,
            y=y,
            xgap=gap,
            ygap=gap,
            colorscale=[[0, MASKED_GREY], [1, MASKED_GREY]],
            showscale=False,
            hoverinfo="skip",
        )
        if with_text:
            masked.text = np.where(hidden, forbidden_text, "").astype(object)
            masked.texttemplate = "%{text}"
            masked.textfont = {"color": "#555555"}
        fig.add_trace(masked)

    def axis(labels, count, block, title_text):
        if block == 1 and labels is not None and count <= MAX_TEXT_CELLS:
            return {
                "tickmode": "array",
                "tickvals": list(range(count)),
                "ticktext": [plotly_text(label) for label in labels],
                "title": title_text,
                "tickangle": 0,  # tokens stay upright (Chinese characters too)
            }
        step = max(1, count // 8)
        ticks = list(range(0, count, step))
        names = (
            labels if block == 1 and labels is not None else [str(i * block) for i in range(count)]
        )
        return {
            "tickmode": "array",
            "tickvals": ticks,
            "ticktext": [plotly_text(names[i]) for i in ticks],
            "title": title_text,
            "tickangle": 0,
        }

    if square and small:
        height = int(min(680, max(320, 140 + 60 * rows)))
    elif small:
        height = int(min(640, max(200, 80 + 30 * rows)))
    else:
        height = 600
    fig.update_layout(
        title={"text": plotly_text(title), "x": 0, "font": {"size": 15, "color": title_colour}},
        xaxis={
            **axis(col_labels, reduced.shape[1], bc, plotly_text(col_title)),
            "constrain": "domain",
        },
        yaxis={
            **axis(row_labels, reduced.shape[0], br, ""),
            "autorange": "reversed",
            **({"scaleanchor": "x", "constrain": "domain"} if square and small else {}),
        },
        plot_bgcolor="white",
        height=height,
    )
    shapes, notes, margin = [], [], {"l": 10, "r": 10, "t": 40, "b": 10}
    if focus_row is not None:
        if with_text:
            shapes.append(
                dict(
                    type="rect",
                    line={"color": "#111111", "width": 2.5},
                    fillcolor="rgba(0,0,0,0)",
                    x0=-0.5,
                    x1=cols - 0.5,
                    y0=focus_row - 0.5,
                    y1=focus_row + 0.5,
                )
            )
        else:  # too many rows for a box: a marker at the row's left edge
            notes.append(
                dict(
                    text="▶",
                    x=-0.5,
                    y=focus_row / br,
                    xanchor="right",
                    showarrow=False,
                    font={"size": 14, "color": "#111111"},
                )
            )
    if outline is not None:
        (r0, r1), (c0, c1) = outline
        shapes.append(
            dict(
                type="rect",
                x0=c0 / bc - 0.5,
                x1=c1 / bc - 0.5,
                y0=r0 / br - 0.5,
                y1=r1 / br - 0.5,
                line={"color": "#D55E00", "width": 4},
            )
        )
    for start, stop, band_colour, label in column_bands or ():  # e.g. each head's columns
        shapes.append(
            dict(
                type="rect",
                xref="x",
                yref="paper",
                x0=start - 0.5,
                x1=stop - 0.5,
                y0=1.0,
                y1=1.06,
                fillcolor=band_colour,
                line={"width": 0},
            )
        )
        shapes.append(
            dict(
                type="line",
                xref="x",
                yref="paper",
                x0=start - 0.5,
                x1=start - 0.5,
                y0=0,
                y1=1.0,
                line={"color": band_colour, "width": 2},
            )
        )
        notes.append(
            dict(
                text=plotly_text(label),
                x=(start + stop - 1) / 2,
                yref="paper",
                y=1.06,
                yanchor="bottom",
                showarrow=False,
                font={"size": 11, "color": band_colour},
            )
        )
    if column_bands:
        margin["t"] = 70
    if row_notes is not None and with_text:  # tick labels of a right-hand axis: cheap to draw
        fig.add_trace(
            go.Scatter(
                x=np.zeros(rows),
                y=np.arange(rows),
                yaxis="y2",
                mode="markers",
                marker={"opacity": 0},
                hoverinfo="skip",
                showlegend=False,
            )
        )
        fig.update_layout(
            yaxis2={
                "overlaying": "y",
                "side": "right",
                "anchor": "x",
                "range": [rows - 0.5, -0.5],
                "tickmode": "array",
                "tickvals": list(range(rows)),
                "ticktext": [plotly_text(note) for note in row_notes],
                "tickfont": {"size": 11, "color": "#444444"},
                "showgrid": False,
                "zeroline": False,
            }
        )
        fig.data[0].colorbar.x = 1.12
        margin["r"] = 40
    fig.update_layout(shapes=shapes, annotations=notes, margin=margin)
    return fig


def weights_heatmap(A, tokens, *, title: str, decimals: int = 2, forbidden=None, **options):
    """Attention weights, query tokens by key tokens, on [0, 1]: masked cells read "0", and each
    row's sum is written beside it (so a row that does not sum to 1 shows it)."""
    return heatmap(
        A,
        tokens,
        tokens,
        title=title,
        scale="unit",
        decimals=decimals,
        forbidden=forbidden,
        forbidden_text="0",
        row_notes=sum_notes(A, decimals),
        **options,
    )


def line_chart(
    xs,
    series: dict,
    *,
    title: str,
    x_title: str,
    y_title: str,
    log: bool = True,
    log_y: bool | None = None,
):
    """Lines over xs, one per named series (log-log by default; ``log_y`` overrides the y axis)."""
    log_y = log if log_y is None else log_y
    fig = go.Figure()
    for name, ys in series.items():
        fig.add_trace(
            go.Scatter(x=list(xs), y=list(ys), mode="lines+markers", name=plotly_text(name))
        )
    fig.update_layout(
        title={"text": plotly_text(title), "x": 0},
        height=380,
        xaxis={"title": x_title, "type": "log" if log else "linear", "tickvals": list(xs)},
        yaxis={
            "title": y_title,
            "type": "log" if log_y else "linear",
            **({"dtick": 1, "exponentformat": "power"} if log_y else {}),
        },
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        legend={"orientation": "h", "y": -0.25},
    )
    return fig


def histograms(series: dict, *, title: str, x_title: str, bins: int = 60) -> go.Figure:
    """Overlaid histograms of named samples (binned here, so the payload stays small)."""
    fig = go.Figure()
    everything = np.concatenate([np.asarray(v) for v in series.values()])
    edges = np.linspace(np.percentile(everything, 0.5), np.percentile(everything, 99.5), bins + 1)
    centres = (edges[:-1] + edges[1:]) / 2
    for (name, values), colour in zip(series.items(), ("#D55E00", "#0072B2", "#009E73")):
        counts, _ = np.histogram(values, bins=edges, density=True)
        fig.add_trace(
            go.Bar(
                x=centres,
                y=counts,
                name=plotly_text(name),
                opacity=0.6,
                marker_color=colour,
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
