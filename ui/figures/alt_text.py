"""A chart's text alternative, read off the figure itself, in the learner's language: a name that
says what the chart shows and its point (its size, its largest entry with that entry's row and
column, whether each row sums to 1, how many cells are masked), and the numbers it shows as an
HTML table whose row and column headers are the tokens or the axis labels.

place.plot() gives every chart both: a screen reader hears the name where the chart is (the page's
a11y script sets it as the chart's aria-label and hides the SVG's bare numbers), and the table is
one keypress away (the summary of a <details> right under the chart). Written from the numbers:
a figure changes, its name changes."""

import html
import re
from dataclasses import dataclass

import numpy as np

from ui.figures.heatmaps import block_mean
from ui.kit.i18n import current_lang, t

TABLE_SIDE = 24  # a heatmap's table keeps at most this many rows and columns (block means past it)
TABLE_ROWS = 60  # a line chart's table: at most this many x values (evenly spaced, the last kept)
_TAG = re.compile(r"<[^>]*>")
_NUMBER = re.compile(r"^[−+-]?(\d+(\.\d*)?|\.\d+)([eE][−+-]?\d+)?%?$")


@dataclass(frozen=True)
class ChartText:
    name: str  # the chart's accessible name
    headers: tuple  # (corner, column headers)
    rows: tuple  # ((row header, cell, cell, …), …)
    note: str = ""  # what the table leaves out, if anything

    def html(self, title: str, lang: str) -> str:
        """The <details> that follows the chart: its summary names the table, its table holds
        the numbers; ``data-name`` carries the chart's name for the page's a11y script."""
        e = html.escape
        corner, columns = self.headers
        head = f'<th scope="col">{e(corner)}</th>' + "".join(
            f'<th scope="col">{e(c)}</th>' for c in columns
        )
        body = "".join(
            f'<tr><th scope="row">{e(row[0])}</th>'
            + "".join(f"<td>{e(cell)}</td>" for cell in row[1:])
            + "</tr>"
            for row in self.rows
        )
        note = f"<p>{e(self.note)}</p>" if self.note else ""
        summary = t("a11y.table_of", lang, title=title)
        return (
            f'<details class="chart-alt" data-name="{e(self.name)}"><summary>{e(summary)}'
            f'</summary><div class="chart-alt-scroll" role="region" tabindex="0" '
            f'aria-label="{e(summary)}"><table><caption>{e(title)}</caption><thead><tr>{head}'
            f"</tr></thead><tbody>{body}</tbody></table></div>{note}</details>"
        )


def plain(text) -> str:
    """Plotly's text as words: its tags dropped, its entities read (``&lt;b&gt;`` is "<b>")."""
    return html.unescape(_TAG.sub("", str(text or ""))).strip()


def fmt(value) -> str:
    """A number as a table cell or a name says it: four significant digits, a true minus."""
    if value is None or np.isnan(value):
        return ""
    if not np.isfinite(value):
        return "−∞" if value < 0 else "∞"
    return f"{value:.4g}".replace("-", "−")


def title_of(fig) -> str:
    return plain(fig.layout.title.text) if fig.layout.title else ""


def chart_text(fig, lang: str | None = None) -> ChartText:
    """The figure's name and table in ``lang`` (default: this run's language), made once per
    figure and language (figures are shared between sessions, and so is this)."""
    return _made(fig, lang or current_lang())[0]


def alt_html(fig, lang: str | None = None) -> str:
    """The <details> drawn under the figure (ChartText.html), made once per figure and language."""
    return _made(fig, lang or current_lang())[1]


def _made(fig, lang: str) -> tuple:
    made = fig.__dict__.setdefault("_chart_text", {})
    if lang not in made:
        text = _describe(fig, lang)
        made[lang] = (text, text.html(title_of(fig) or t("a11y.chart", lang), lang))
    return made[lang]


def _describe(fig, lang: str) -> ChartText:
    def say(key: str, **params) -> str:
        return t(key, lang, **params)

    traces = [tr for tr in fig.data if _shown(tr)]
    heat = [tr for tr in traces if tr.type == "heatmap"]
    if heat:
        return _heatmap(fig, heat, say)
    bars = [tr for tr in traces if tr.type == "bar"]
    if bars:
        return _series(fig, bars, "a11y.bars", say)
    lines = [tr for tr in traces if tr.type == "scatter"]
    if lines:
        return _series(fig, lines, "a11y.lines", say)
    raise ValueError(f"no text alternative for a figure of {[tr.type for tr in fig.data]}")


def _shown(trace) -> bool:
    """A trace that carries numbers: not a legend's swatch (x all None), nor the clickable
    cells' invisible markers (ui/figures/pickable.py)."""
    if trace.type == "scatter":
        if trace.x is None or all(x is None for x in trace.x):
            return False
        marker = trace.marker
        if marker is not None and marker.opacity == 0:
            return False
    return True


def _labels(axis, count: int, positions) -> list[str]:
    """Each row's (or column's) label: its tick text where the axis has one at that position,
    else its category, else its position."""
    labels = [None] * count
    if positions is not None and len(positions) == count:
        labels = [None if isinstance(p, (int, float, np.integer, np.floating)) else plain(p)
                  for p in positions]  # fmt: skip
    if axis.tickvals is not None and axis.ticktext is not None:
        for value, text in zip(axis.tickvals, axis.ticktext):
            index = int(round(float(value)))
            if 0 <= index < count and labels[index] is None:
                labels[index] = plain(text)
    return [label if label else str(i) for i, label in enumerate(labels)]


def _cell_text(trace, z) -> np.ndarray:
    """What each cell says: its printed text (a number as printed, or a piece with its value),
    else its value."""
    shown = np.vectorize(fmt, otypes=[object])(z)
    if trace.text is None:
        return shown
    text = np.asarray(trace.text, dtype=object)
    if text.shape != z.shape:
        return shown
    words = np.vectorize(plain, otypes=[object])(text)
    numeric = np.vectorize(lambda w: bool(_NUMBER.match(w)), otypes=[bool])(words)
    return np.where(numeric, words, np.where(np.isfinite(z), words + " (" + shown + ")", words))


def _heatmap(fig, heat, say) -> ChartText:
    values = next((tr for tr in heat if tr.hoverinfo != "skip"), heat[0])
    z = np.asarray(values.z, dtype=np.float64)
    if z.ndim != 2:
        z = np.atleast_2d(z)
    cells = _cell_text(values, z)
    masked = np.zeros(z.shape, dtype=bool)
    for over in heat:  # a masked cell's grey overlay writes −∞ (or 0): the cell says that
        if over is values or over.text is None:
            continue
        text = np.asarray(over.text, dtype=object)
        if text.shape == z.shape:
            said = np.vectorize(lambda w: bool(plain(w)), otypes=[bool])(text)
            hidden = said & ~np.isfinite(z)  # (an overlay that repaints a value's ink: not this)
            cells = np.where(hidden, np.vectorize(plain, otypes=[object])(text), cells)
            masked |= hidden
    given = fig.layout.meta.get("labels") if isinstance(fig.layout.meta, dict) else None
    if given and len(given[0]) == z.shape[0] and len(given[1]) == z.shape[1]:
        rows, cols = [str(r) for r in given[0]], [str(c) for c in given[1]]  # every one, not ticks
    else:
        rows = _labels(fig.layout.yaxis, z.shape[0], values.y)
        cols = _labels(fig.layout.xaxis, z.shape[1], values.x)
    row_title = plain(fig.layout.yaxis.title.text) if fig.layout.yaxis.title else ""
    col_title = plain(fig.layout.xaxis.title.text) if fig.layout.xaxis.title else ""
    name = _heatmap_name(
        fig, z, cells, (rows, cols), (row_title, col_title), int(masked.sum()), say
    )
    note = ""
    if max(z.shape) > TABLE_SIDE:  # too many to read: block means, said in the note
        reduced, br, bc = block_mean(np.where(np.isfinite(z), z, np.nan), TABLE_SIDE)
        cells = np.vectorize(fmt, otypes=[object])(reduced)
        rows = [_span(rows, i * br, br) for i in range(reduced.shape[0])]
        cols = [_span(cols, j * bc, bc) for j in range(reduced.shape[1])]
        note = say("a11y.blocks", rows=z.shape[0], cols=z.shape[1], br=br, bc=bc)
    corner = f"{row_title} ＼ {col_title}" if row_title or col_title else ""
    table = tuple((rows[i], *cells[i]) for i in range(len(rows)))
    return ChartText(name, (corner, tuple(cols)), table, note)


def _span(labels, start: int, size: int) -> str:
    stop = min(start + size, len(labels)) - 1
    return labels[start] if stop <= start else f"{labels[start]} … {labels[stop]}"


def _where(say, row_title, row, col_title, col) -> str:
    return say("a11y.at", row_title=row_title or say("a11y.row"), row=row,
             col_title=col_title or say("a11y.column"), col=col)  # fmt: skip


ROW_TOPS = 12  # a matrix of weights with at most this many rows names each row's largest


def _heatmap_name(fig, z, cells, labels, titles, masked: int, say) -> str:
    """Its title and size; for weights (each row sums to 1) each row's largest key, else the
    largest entry (and the smallest, when negative); the masked cells. Values as printed."""
    (rows, cols), (row_title, col_title) = labels, titles
    parts = [
        say("a11y.matrix", title=title_of(fig) or say("a11y.chart"), r=z.shape[0], c=z.shape[1])
    ]
    finite = np.isfinite(z)
    if finite.any():
        held = np.where(finite, z, np.nan)
        live = finite.any(axis=1)
        sums = np.nansum(held, axis=1)
        weights = z[finite].min() >= 0 and np.allclose(sums[live], 1.0, atol=2e-3)
        if weights and z.shape[1] > 1:
            parts.append(say("a11y.rows_sum_1"))
        if weights and z.shape[1] > 1 and z.shape[0] <= ROW_TOPS:
            tops = [
                f"{rows[i]} → {cols[j]} {cells[i, j]}"
                for i, j in ((i, int(np.nanargmax(held[i]))) for i in np.flatnonzero(live))
            ]
            parts.append(say("a11y.row_tops", row_title=row_title or say("a11y.row"),
                           tops=say("a11y.list_join").join(tops)))  # fmt: skip
        else:
            top = np.unravel_index(np.nanargmax(held), z.shape)
            where = _where(say, row_title, rows[top[0]], col_title, cols[top[1]])
            parts.append(say("a11y.largest", where=where, value=cells[top]))
            low = np.unravel_index(np.nanargmin(held), z.shape)
            if z[low] < 0:
                where = _where(say, row_title, rows[low[0]], col_title, cols[low[1]])
                parts.append(say("a11y.smallest", where=where, value=cells[low]))
    if masked:
        parts.append(say("a11y.masked", k=masked))
    return say("a11y.join").join(parts)


def _series(fig, traces, kind: str, say) -> ChartText:
    """Bars or lines: a row per x value (or category), a column per series (an unnamed one by
    its y axis's title); values as the chart prints them over its bars, where it does."""
    y_title = plain(fig.layout.yaxis.title.text) if fig.layout.yaxis.title else ""
    names = [plain(tr.name) or (y_title if len(traces) == 1 else "") or say("a11y.series", i=i + 1)
             for i, tr in enumerate(traces)]  # fmt: skip
    xs: list = []
    columns = {}
    for name, tr in zip(names, traces):
        given = list(tr.x) if tr.x is not None else list(range(len(tr.y)))
        xs += [x for x in given if x not in xs]
        columns[name] = dict(zip(given, _printed(tr)))
    x_title = plain(fig.layout.xaxis.title.text) if fig.layout.xaxis.title else ""
    labels = _x_labels(fig.layout.xaxis, xs)
    parts = [say(kind, title=title_of(fig) or say("a11y.chart"), k=len(xs), s=len(names))]
    if x_title:
        parts.append(say("a11y.x_axis", title=x_title, first=labels[0], last=labels[-1]))
    for name in names[:4]:
        got = [(x, v, text) for x, (v, text) in columns[name].items() if np.isfinite(v)]
        if got:
            x_top, _, top = max(got, key=lambda p: p[1])
            where = {"name": name, "x": labels[xs.index(x_top)], "value": top}
            if kind == "a11y.bars":  # categories: no first and last to speak of
                parts.append(say("a11y.bar_top", **where))
            else:
                parts.append(say("a11y.series_top", **where, first=got[0][2], last=got[-1][2]))
    keep = range(len(xs))
    note = ""
    if len(xs) > TABLE_ROWS:
        keep = sorted({*np.linspace(0, len(xs) - 1, TABLE_ROWS).round().astype(int).tolist()})
        note = say("a11y.every_kth", shown=len(keep), total=len(xs))
    rows = tuple(
        (labels[i], *(columns[n][xs[i]][1] if xs[i] in columns[n] else "" for n in names))
        for i in keep
    )
    return ChartText(say("a11y.join").join(parts), (x_title or "", tuple(names)), rows, note)


def _printed(trace) -> list[tuple[float, str]]:
    """Each point's (value, text): the number printed over it where the chart prints one."""
    values = [float(y) if y is not None else float("nan") for y in trace.y]
    texts = list(trace.text) if isinstance(trace.text, (list, tuple)) else None
    if texts is None or len(texts) != len(values):
        texts = [None] * len(values)
    return [
        (v, plain(text) if text is not None and _NUMBER.match(plain(text)) else fmt(v))
        for v, text in zip(values, texts)
    ]


def _x_labels(axis, xs) -> list[str]:
    """Each x as the axis labels it (its tick text where it has one), else as a number."""
    ticks = {}
    if axis.tickvals is not None and axis.ticktext is not None:
        ticks = {v: plain(text) for v, text in zip(axis.tickvals, axis.ticktext)}
    return [ticks.get(x, plain(x) if isinstance(x, str) else fmt(float(x))) for x in xs]
