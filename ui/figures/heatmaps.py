"""Heatmaps: a matrix with its tokens on the axes (values printed where they fit, masked cells
grey, focus rows, head bands and row notes), attention weights, masks, and the lens's map of
pieces. Printed values are black, or white on a dark cell (``_white_text``): 4.5:1 on every
cell."""

import math
import unicodedata
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from ui.figures.palette import (
    BAR_ROOM,
    BLACK,
    CELL_PAD,
    DARK_GREY,
    MASK_COLOURS,
    MASK_SCALE,
    MASKED_GREY,
    MAX_SIDE,
    MAX_TEXT_CELLS,
    MAX_TICK_CHARS,
    NOTE_ROOM,
    PALE,
    SIGNED_SCALE,
    TEXT_PX,
    TICK_GAP,
    TICK_PX,
    VERMILLION,
    WEIGHT_SCALE,
    WHITE,
    SharedFigure,
    cell_ink,
    ink,
)
from ui.kit.escape import plotly_text
from ui.kit.number_text import num, sum_notes
from ui.kit.shared_cache import CLASS, shared


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


@shared(max_entries=4 * CLASS)  # a class's own sentences: up to 3 on a walkthrough step each
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
    narrowest: int | None = None,
) -> go.Figure:
    """A labelled heatmap: rows top to bottom in order, positions on the axes, tokens as tick text.

    ``scale`` "signed" is diverging around 0 (symmetric, ``bound`` to share a range between
    figures); "unit" is sequential on [0, 1] (A), ``bound`` its top when the values are too many
    to print (else each figure tops out at its own max). 0/1 masks: ``mask_heatmap``.
    ``forbidden`` (bool, True = masked) cells are drawn grey with ``forbidden_text``. ``square``
    keeps n x n cells square. Matrices larger than MAX_SIDE are block-averaged (the hover says
    which rows and columns a block covers).
    ``outline`` (rows, cols), each a (start, stop) pair, draws a box around those cells.
    ``narrowest``: the fewest px across the cells on any screen (a phone's). With it the column
    labels stay upright, shortened or thinned to fit that width; values print at TEXT_PX (where
    the cells are narrower than ``values_fit_width`` says, a page hides them: the hover has
    them); the colour bar lies over the cells, to leave them the width.

    Figures are shared between sessions (built once per distinct call): never change one.
    """
    cells = _Cells.of(M, forbidden)
    text_px = TEXT_PX if narrowest else None
    values = _values_trace(cells, scale, bound, decimals, text_px)
    masked = cells.small and cells.hidden.any()
    traces = [values, _mask_overlay(cells, forbidden_text, text_px)] if masked else [values]
    traces += _white_text(values)
    layout = _frame(cells, row_labels, col_labels, title, title_colour, col_title, square,
                    row_title, narrowest)  # fmt: skip
    bar = "plot" if square else "top" if narrowest else None
    _marks(layout, values, cells, bar, focus_row, outline, column_bands, row_notes)
    if narrowest and row_title:
        _row_title_over(layout, row_title)
    return SharedFigure(data=traces, layout=layout)


def _row_title_over(layout: dict, row_title: str) -> None:
    """The row title written level over the row labels, ending at the cells (so that a Chinese
    title is never turned 90°), in place of the axis title."""
    text = f"{row_title} ↓"
    del layout["yaxis"]["title"]  # no axis title: it is said over the labels
    layout["margin"]["l"] = math.ceil(text_em(text) * TICK_PX) + 10
    place = {
        "xref": "paper",
        "x": 0,
        "xanchor": "right",
        "yref": "paper",
        "y": 1,
        "yanchor": "bottom",
    }
    layout["annotations"].append(dict(text=plotly_text(text), **place, yshift=2, showarrow=False,
                                      font={"size": TICK_PX}))  # fmt: skip


def _marks(
    layout: dict, values, cells, bar: str | None, focus_row, outline, column_bands, row_notes
) -> None:
    """The focus row's band, the outline, the column bands and the row notes, with the margins
    and the colour bar's place that they leave: ``bar`` "plot" lies it over the plot, "top" in
    a band of the figure over the cells, None beside them. Into ``layout`` and the values'
    trace."""
    shapes, notes, margin = [], [], {"l": 10, "r": 10, "t": 40, "b": 10}
    with_notes = row_notes is not None and cells.with_text
    for marks in (
        _focus_marks(cells, focus_row),
        _outline_marks(cells, outline),
        _band_marks(column_bands),
        _row_note_marks(row_notes if with_notes else None),
    ):
        shapes += marks[0]
        notes += marks[1]
    if column_bands:
        margin["t"] = 70
    bar_above = bar is not None and cells.small and not column_bands
    if bar_above:  # title, then the bar, then the plot flush under it (any spare room below)
        margin["t"] = 30 + BAR_ROOM
        layout["height"] += BAR_ROOM - 10
        title_at = {"y": 1 - 26 / layout["height"], "yref": "container", "yanchor": "middle"}
        layout["title"].update(title_at)
    if with_notes:
        margin["r"] = NOTE_ROOM
    bar_at = _colour_bar(bar_above, with_notes)
    if bar_above and bar == "top":  # the figure's band: tied to the plot, Plotly draws the
        top = 1 - (30 + BAR_ROOM / 2) / layout["height"]  # axis title over the tick labels
        bar_at.update(yref="container", y=top, yanchor="middle")
    values.colorbar = bar_at
    layout.update(shapes=shapes, annotations=notes, margin=margin)


def _colour_bar(above: bool, beside_notes: bool) -> dict:
    """A colour bar touching its plot at any width. Beside a plot that fills the width, its
    left edge is the plot's right edge (``xpad`` in pixels clears the row notes). A square plot
    is narrower than the figure on a wide screen (centred) and shorter than it on a phone (at
    the top), so its bar lies over it, centred, between the title and the cells: on both
    screens it touches the plot and leaves no hole under the title."""
    if not above:
        return {
            "thickness": 12,
            "len": 0.9,
            "x": 1.0,
            "xanchor": "left",
            "xpad": NOTE_ROOM + 4 if beside_notes else 8,
        }
    return {
        "orientation": "h",
        "thickness": 10,
        "lenmode": "pixels",
        "len": 220,
        "x": 0.5,
        "xanchor": "center",
        "y": 1,
        "yref": "paper",  # the top of the plot area: the cells start right under it
        "yanchor": "bottom",
        "ypad": 4,
    }


def _slanted(labels) -> bool:
    """Tick labels long enough to be drawn at an angle (so they never run together)."""
    return labels is not None and any(len(str(label)) > 3 for label in labels)


@dataclass(frozen=True)
class _Cells:
    """What a heatmap draws of M: values (block means past MAX_SIDE), hidden cells, text or not."""

    M: np.ndarray  # float64, as given
    hidden: np.ndarray  # bool, True = masked
    reduced: np.ndarray  # what is coloured: NaN where hidden or not finite
    br: int  # rows per block (1: no averaging)
    bc: int

    @classmethod
    def of(cls, M, forbidden) -> "_Cells":
        M = np.asarray(M, dtype=np.float64)
        hidden = np.zeros_like(M, dtype=bool) if forbidden is None else np.asarray(forbidden, bool)
        hidden = np.broadcast_to(hidden, M.shape)
        reduced, br, bc = block_mean(np.where(hidden | ~np.isfinite(M), np.nan, M))
        return cls(M, hidden, reduced, br, bc)

    @property
    def rows(self) -> int:
        return self.M.shape[0]

    @property
    def small(self) -> bool:  # one cell per entry
        return self.br == 1 and self.bc == 1

    @property
    def with_text(self) -> bool:  # values printed in the cells
        return self.small and self.rows <= MAX_TEXT_CELLS and self.M.shape[1] <= MAX_TEXT_CELLS

    @property
    def gap(self) -> int:
        return 1 if self.with_text else 0

    @property
    def xy(self) -> tuple:
        return np.arange(self.reduced.shape[1]), np.arange(self.reduced.shape[0])


def _colour(cells: _Cells, scale: str, bound: float | None) -> dict:
    finite = np.isfinite(cells.reduced).any()
    if scale == "unit":  # [0, 1]; long rows spread thin, so their scale tops out at the max
        top = 1.0 if cells.with_text or not finite else float(np.nanmax(cells.reduced))
        top = bound if bound is not None and not cells.with_text else top
        return {"colorscale": WEIGHT_SCALE, "zmin": 0.0, "zmax": top}
    if bound is None:
        bound = float(np.nanmax(np.abs(cells.reduced))) if finite else 1.0
    return {"colorscale": SIGNED_SCALE, "zmid": 0.0, "zmin": -bound, "zmax": bound}


def _cells_trace(cells: _Cells, z: np.ndarray, **style) -> go.Heatmap:
    """One heatmap trace over the cells' positions, with their gaps: values, overlay or mask."""
    x, y = cells.xy
    return go.Heatmap(z=z.astype(np.float32), x=x, y=y, xgap=cells.gap, ygap=cells.gap, **style)


def _font(colour: str, px: int | None) -> dict:
    """Cell text in ``colour``, at ``px`` (None: the figure's size)."""
    return {"color": colour, **({"size": px} if px else {})}


def _values_trace(cells: _Cells, scale: str, bound, decimals: int, text_px=None) -> go.Heatmap:
    trace = _cells_trace(cells, cells.reduced, **_colour(cells, scale, bound))
    if cells.with_text:
        trace.text = _format(cells.M, decimals)
        trace.texttemplate = "%{text}"
        trace.textfont = _font(BLACK, text_px)  # white where the cell is dark: _white_text
        trace.hovertemplate = "%{y} → %{x}: %{z:.6f}<extra></extra>"
    elif cells.small:
        trace.hovertemplate = "%{y} → %{x}: %{z:.4f}<extra></extra>"
    else:
        br, bc = cells.br, cells.bc
        trace.hovertemplate = f"rows %{{y}}×{br} · cols %{{x}}×{bc}: %{{z:.4f}}<extra></extra>"
    return trace


def _mask_overlay(cells: _Cells, forbidden_text: str, text_px=None) -> go.Heatmap:
    """Masked cells: grey, with their symbolic value written in dark grey (1 exactly where
    hidden)."""
    masked = _cells_trace(
        cells,
        np.where(cells.hidden, 1.0, np.nan),
        colorscale=[[0, MASKED_GREY], [1, MASKED_GREY]],
        showscale=False,
        hoverinfo="skip",
    )
    if cells.with_text:
        masked.text = np.where(cells.hidden, forbidden_text, "").astype(object)
        masked.texttemplate = "%{text}"
        masked.textfont = _font(DARK_GREY, text_px)
    return masked


def _white_text(trace: go.Heatmap) -> list:
    """Where ``trace`` prints on a dark cell, the same cells painted again over it (its z, scale
    and gaps: the same colour) with that text in white; [] if none is dark. A heatmap's text is
    one colour per trace, and neither black nor white reads at 4.5:1 on every colour of a scale:
    the cell's own colour chooses (``cell_ink``), and under it ``trace``'s black text is hidden.
    Its hover is ``trace``'s, under it."""
    if trace.text is None:
        return []
    z = np.asarray(trace.z)
    white = cell_ink(z, trace.colorscale, trace.zmin, trace.zmax) == WHITE
    white &= np.isfinite(z)
    if not white.any():
        return []
    over = go.Heatmap(
        z=np.where(white, z, np.nan).astype(z.dtype),
        x=trace.x,
        y=trace.y,
        xgap=trace.xgap,
        ygap=trace.ygap,
        colorscale=trace.colorscale,
        zmin=trace.zmin,
        zmax=trace.zmax,
        zmid=trace.zmid,
        showscale=False,
        hoverinfo="skip",
        text=np.where(white, np.asarray(trace.text, dtype=object), "").astype(object),
        texttemplate=trace.texttemplate,
        textfont=_font(WHITE, trace.textfont.size),
    )
    return [over]


def text_em(text) -> float:
    """About how wide ``text`` is, in ems of the charts' font (Source Sans, measured in
    Chromium), a little over: CJK and other wide characters 1, digits and lower case 0.5,
    brackets, slashes and stops 0.3, the rest 0.6."""

    def em(c: str) -> float:
        if unicodedata.east_asian_width(c) in "WF" or c == "…":
            return 1.0
        if c in "[](){}/|\\.,:;'!il":
            return 0.3
        return 0.5 if c.isdigit() or c.islower() or c in "−<>" else 0.6

    return sum(em(c) for c in str(text))


def _shortened(name: str, room_em: float) -> str:
    """``name`` if it fits ``room_em``, else its longest start of 3 characters or more with "…"
    that does ("" if none: "[…" or "好…" would say nothing)."""
    if text_em(name) <= room_em:
        return name
    cut = next((i for i in range(len(name) - 1, 2, -1) if text_em(name[:i] + "…") <= room_em), 0)
    return name[:cut] + "…" if cut else ""


def fitted_ticks(labels, room: int, font_px: int = TICK_PX) -> tuple[list, list]:
    """Upright column labels that fit ``room`` px across ``len(labels)`` columns. A label may
    reach into a narrow neighbour's half (e.g. "␣"'s); one that would still run into the next
    is shortened with "…"; when even that cannot fit, the labels that clear those already placed
    are kept, words first from the left, then the lone spaces "␣"."""
    names, count = [_tick(label) for label in labels], len(labels)
    column = room / max(count, 1)
    fit = _fit_beside(names, column - TICK_GAP, font_px)
    if fit:
        return list(range(count)), fit
    width = [text_em(name) * font_px for name in names]
    placed: list[int] = []
    for i in sorted(range(count), key=lambda i: names[i] == "␣"):  # stable: words, then spaces
        if all(abs(i - j) * column >= (width[i] + width[j]) / 2 + TICK_GAP for j in placed):
            placed.append(i)
    placed.sort()
    return placed, [names[i] for i in placed]


def _fit_beside(names: list, half: float, font_px: int) -> list | None:
    """``names`` a ``half`` px apart (and ``half`` wide each, or wider beside a narrow one),
    shortened where needed; None if one cannot be shortened enough."""
    width = [min(text_em(name) * font_px, half) for name in names]
    fit = []
    for i, name in enumerate(names):
        beside = [width[j] for j in (i - 1, i + 1) if 0 <= j < len(names)]
        fit.append(_shortened(name, (2 * half - max(beside, default=0)) / font_px))
    return fit if all(fit) else None


def _fitted_rows(labels, height: int) -> dict:
    """Row labels of a chart drawn with ``narrowest``: every k-th, k as small as lets each have
    a line of its own in the plot's height (the figure's, less its title, bar and column labels)."""
    count = len(labels)
    step = max(1, math.ceil(count * (TICK_PX + 3) / max(height - 130, 1)))
    ticks = list(range(0, count, step))
    return {"tickvals": ticks, "ticktext": [plotly_text(_tick(labels[i])) for i in ticks]}


def beside_cells(row_labels, row_title: str = "") -> int:
    """About how many px of a chart drawn with ``narrowest`` are not its cells: the margins, and
    the row labels or the row title over them (``_row_title_over``), whichever is wider."""
    labels = max((text_em(_tick(label)) for label in row_labels), default=0) * TICK_PX + 16
    title = text_em(f"{row_title} ↓") * TICK_PX + 10 if row_title else 10
    return math.ceil(max(labels, title) + 10)


def values_fit_width(M, row_labels, decimals: int, row_title: str = "", font_px=TEXT_PX) -> int:
    """The least width (px) of a chart drawn with ``narrowest`` at which every cell has room for
    its value at ``font_px``, and the row labels and title beside them."""
    widest = max((text_em(text) for text in np.ravel(_format(np.asarray(M), decimals))), default=0)
    cells = math.ceil(np.shape(M)[1] * (widest * font_px + CELL_PAD))
    return cells + beside_cells(row_labels, row_title)


def _tick(name) -> str:
    name = str(name)
    return name if len(name) <= MAX_TICK_CHARS else name[: MAX_TICK_CHARS - 1] + "…"


def _axis(
    labels, count: int, block: int, title_text: str, upright: bool = True, room: int | None = None
) -> dict:
    """Every label when they fit, else about eight positions. Short labels stay upright; long
    ones (e.g. "<pad>") on a column axis may slant so that they never run together, and very
    long ones are shortened. Given ``room`` (px across the cells), every label stays upright,
    shortened or thinned to fit it."""
    if room and block == 1 and labels is not None:
        ticks, names = fitted_ticks(labels, room)
        upright = True
    elif block == 1 and labels is not None and count <= MAX_TEXT_CELLS:
        ticks, names = list(range(count)), labels
    else:
        ticks = list(range(0, count, max(1, count // 8)))
        names = (
            labels if block == 1 and labels is not None else [str(i * block) for i in range(count)]
        )
        names = [names[i] for i in ticks]
    return {
        "tickmode": "array",
        "tickvals": ticks,
        "ticktext": [plotly_text(_tick(name)) for name in names],
        "title": title_text,
        "tickangle": 0 if upright or not _slanted(names) else None,  # None: slants if crowded
    }


def _frame(
    cells: _Cells,
    row_labels,
    col_labels,
    title,
    title_colour,
    col_title,
    square,
    row_title="",
    room=None,
):
    """Title, axes (the first row at the top) and a height that suits the rows: a layout, as a
    dict (a figure built with its layout at once takes a third of the time of update_layout's
    checks after it, for the same figure)."""
    rows, small = cells.rows, cells.small
    if square and small:
        height = int(min(640, max(300, 120 + 49 * rows)))  # 5 rows: the mask and softmax steps'
        # first chart whole above a 900 px fold, under their taller formulas
    elif small:
        height = int(min(640, max(200, 80 + 30 * rows)))
    else:
        height = 600
    text = plotly_text(title)
    if title_colour in PALE:  # a swatch of the colour, the words in dark grey
        text = f"<span style='color:{title_colour}'>■</span> {text}"
    columns = cells.reduced.shape[1]
    return dict(
        title={"text": text, "x": 0, "font": {"size": 15, "color": ink(title_colour)}},
        xaxis={
            **_axis(col_labels, columns, cells.bc, plotly_text(col_title), False, room),
            "constrain": "domain",
        },
        yaxis={
            **_axis(row_labels, cells.reduced.shape[0], cells.br, plotly_text(row_title)),
            **(_fitted_rows(row_labels, height) if room and small and row_labels else {}),
            "autorange": "reversed",
            **(
                {"scaleanchor": "x", "constrain": "domain", "constraintoward": "top"}
                if square and small
                else {}
            ),
        },
        plot_bgcolor="white",
        height=height,
        **_every_label(cells, row_labels, col_labels),
    )


def _every_label(cells: _Cells, row_labels, col_labels) -> dict:
    """Where the axes tick only about 8 rows (more than MAX_TEXT_CELLS, drawn one by one), every
    row's and column's label in the figure's meta: its table (alt_text.py) names each one."""
    if not cells.small or cells.with_text or row_labels is None or col_labels is None:
        return {}
    return {"meta": {"labels": [[str(r) for r in row_labels], [str(c) for c in col_labels]]}}


def _focus_marks(cells: _Cells, focus_row) -> tuple[list, list]:
    """A box around the focus row, or a marker at its left edge when the rows are too many."""
    if focus_row is None:
        return [], []
    if cells.with_text:
        box = dict(
            type="rect",
            line={"color": "#111111", "width": 2.5},
            fillcolor="rgba(0,0,0,0)",
            x0=-0.5,
            x1=cells.M.shape[1] - 0.5,
            y0=focus_row - 0.5,
            y1=focus_row + 0.5,
        )
        return [box], []
    marker = dict(
        text="▶",
        x=-0.5,
        y=focus_row / cells.br,
        xanchor="right",
        showarrow=False,
        font={"size": 14, "color": "#111111"},
    )
    return [], [marker]


def _outline_marks(cells: _Cells, outline) -> tuple[list, list]:
    if outline is None:
        return [], []
    (r0, r1), (c0, c1) = outline
    br, bc = cells.br, cells.bc
    box = dict(
        type="rect",
        x0=c0 / bc - 0.5,
        x1=c1 / bc - 0.5,
        y0=r0 / br - 0.5,
        y1=r1 / br - 0.5,
        line={"color": VERMILLION, "width": 4},
    )
    return [box], []


def _band_marks(column_bands) -> tuple[list, list]:
    """A coloured band with a label above each group of columns (e.g. each head's), and a line
    at the group's left edge."""
    shapes, notes = [], []
    for start, stop, colour, label in column_bands or ():
        edges = {"xref": "x", "yref": "paper", "x0": start - 0.5}
        shapes.append(
            dict(
                type="rect",
                **edges,
                x1=stop - 0.5,
                y0=1.0,
                y1=1.06,
                fillcolor=colour,
                line={"width": 0},
            )
        )
        shapes.append(
            dict(
                type="line",
                **edges,
                x1=start - 0.5,
                y0=0,
                y1=1.0,
                line={"color": colour, "width": 2},
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
                font={"size": 11, "color": ink(colour)},
            )
        )
    return shapes, notes


def _row_note_marks(row_notes) -> tuple[list, list]:
    """Row notes (e.g. row sums) written just right of the cells, each level with its row
    (notes are drawn only when the values are printed, so at most MAX_TEXT_CELLS of them)."""
    if row_notes is None:
        return [], []
    notes = [
        dict(
            text=plotly_text(note),
            x=1,
            xref="x domain",
            xanchor="left",
            xshift=4,
            y=i,
            yref="y",
            showarrow=False,
            font={"size": 11, "color": "#444444"},
        )
        for i, note in enumerate(row_notes)
    ]
    return [], notes


@shared(max_entries=40)
def mask_heatmap(
    allowed,
    row_labels,
    col_labels,
    *,
    title: str,
    legend: tuple[str, str],
    row_title: str = "",
    col_title: str = "",
) -> go.Figure:
    """A 0/1 mask in two colours, no colour bar: 1 (a query may attend to the key) and 0 (hidden),
    named by ``legend`` = (allowed, forbidden) in the learner's language (e.g. "allowed (1)")."""
    allowed = np.asarray(allowed, dtype=bool)
    cells = _Cells.of(allowed.astype(np.float64), None)
    words = np.where(allowed, legend[0], legend[1]).astype(object)
    trace = _cells_trace(
        cells,
        cells.reduced,
        zmin=0,
        zmax=1,
        colorscale=MASK_SCALE,
        showscale=False,
        hoverinfo="skip",
    )
    if cells.small:
        trace.customdata = np.vectorize(plotly_text, otypes=[object])(words)
        trace.hovertemplate = "%{y} → %{x}: %{customdata}<extra></extra>"
    if cells.with_text:
        trace.text = np.where(allowed, "1", "0").astype(object)
        trace.texttemplate = "%{text}"
        trace.textfont = _font(BLACK, None)  # white on the blue cells: _white_text
    swatches = [_swatch(label, MASK_COLOURS[name]) for name, label in zip(MASK_COLOURS, legend)]
    layout = _frame(cells, row_labels, col_labels, title, None, col_title, False, row_title)
    layout.update(
        legend={
            "orientation": "h",
            "x": 1,
            "xanchor": "right",
            "y": 1.01,
            "yanchor": "bottom",
        },  # one row between the title and the cells, clear of the tick labels below
        margin={"l": 10, "r": 10, "t": 70, "b": 10},
        height=layout["height"] + 30,
    )
    return SharedFigure(data=[trace, *_white_text(trace), *swatches], layout=layout)


def _swatch(label: str, colour: str) -> go.Scatter:
    """A legend entry only: a square of ``colour`` named ``label``."""
    marker = {"symbol": "square", "size": 14, "color": colour}
    return go.Scatter(x=[None], y=[None], mode="markers", name=plotly_text(label), marker=marker,
                      showlegend=True)  # fmt: skip


def A_heatmap(
    A, tokens, *, title: str, decimals: int = 2, forbidden=None, sums: bool = True, **options
):
    """Attention weights, query tokens by key tokens, on [0, 1]: masked cells read "0", and each
    row's sum is written beside it (so a row that does not sum to 1 shows it), unless not
    ``sums`` (a page that says so in words, and needs the width for the cells)."""
    return heatmap(
        A,
        tokens,
        tokens,
        title=title,
        scale="unit",
        decimals=decimals,
        forbidden=forbidden,
        forbidden_text="0",
        row_notes=sum_notes(A, decimals) if sums else None,
        **options,
    )


@shared(max_entries=32)
def piece_map(pieces, p, row_labels, col_labels, title: str, colour_title: str) -> go.Figure:
    """A grid of pieces (the text in each cell), coloured by a probability in [0, 1]: the logit
    lens's map of each layer's first piece at each position. Shared: never change it."""
    trace = go.Heatmap(
        z=np.asarray(p, dtype=float),
        text=[[plotly_text(piece) for piece in row] for row in pieces],
        texttemplate="%{text}",
        textfont=_font(BLACK, None),  # white on the darker blues: _white_text
        hovertemplate="%{y} · %{x}: %{text} (p = %{z:.3f})<extra></extra>",
        x=[plotly_text(label) for label in col_labels],
        y=list(row_labels),
        zmin=0.0,
        zmax=1.0,
        colorscale="Blues",
        colorbar={"title": {"text": plotly_text(colour_title)}, "thickness": 12},
        xgap=1,
        ygap=1,
    )
    fig = SharedFigure(data=[trace, *_white_text(trace)])
    fig.update_layout(
        title={"text": plotly_text(title), "x": 0},
        height=max(320, 26 * len(row_labels) + 90),
        xaxis={"type": "category", "side": "top", "tickangle": 0},
        yaxis={"type": "category", "autorange": "reversed"},
        margin={"l": 10, "r": 10, "t": 70, "b": 10},
        plot_bgcolor="white",
        meta={"text_rows": True},  # a projector keeps each row the height of its text (place.py)
    )
    return fig
