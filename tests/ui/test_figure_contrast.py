"""Contrast in the figures (issue 64, WCAG 2.2 AA): every number printed on a heatmap's cell reads
at 4.5:1 against that cell, as the browser draws it; head and series colours written as text read
at 4.5:1 on white; lines differ by dash or marker as well as by colour.

The cells' colours and the contrast are computed here on their own (Plotly's colour helpers, one
cell at a time, and WCAG's formula written out), not with ui/figures/palette.py's."""

import colorsys
import itertools

import numpy as np
import plotly.graph_objects as go
import pytest
from plotly.colors import convert_colors_to_same_type, find_intermediate_color

from ui.figures.heatmaps import A_heatmap, heatmap, mask_heatmap, piece_map
from ui.figures.lines import line_chart
from ui.figures.palette import (
    COLOURS,
    HEAD_COLOURS,
    LINE_COLOURS,
    MASKED_GREY,
    PALE,
    SERIES,
    contrast,
    ink,
    relative_luminance,
)

WHITE = (255.0, 255.0, 255.0)


def to_rgb(colour: str) -> tuple:
    """'#rrggbb' or 'rgb(…)' as (r, g, b) in 0-255."""
    ((red, green, blue),), _ = convert_colors_to_same_type(colour, "tuple")
    return red * 255, green * 255, blue * 255


def luminance(rgb) -> float:
    """WCAG 2.2's relative luminance, written out for one colour."""

    def linear(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    red, green, blue = (linear(c) for c in rgb)
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def ratio(a, b) -> float:
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def painted(trace, value: float) -> tuple:
    """The colour a heatmap trace paints ``value``: between the two stops of its scale around
    it, linearly in RGB (plotly.js's d3 scale), the value clamped to [zmin, zmax] (z's own range
    where they are not set; its middle when that range is one value)."""
    z = np.asarray(trace.z, dtype=np.float64)
    low = np.nanmin(z) if trace.zmin is None else trace.zmin
    high = np.nanmax(z) if trace.zmax is None else trace.zmax
    at = 0.5 if high == low else min(max((value - low) / (high - low), 0.0), 1.0)
    stops = [(float(stop), to_rgb(colour)) for stop, colour in trace.colorscale]
    for (s0, c0), (s1, c1) in itertools.pairwise(stops):
        if s0 <= at <= s1:
            return c0 if s1 == s0 else find_intermediate_color(c0, c1, (at - s0) / (s1 - s0))
    raise AssertionError(f"{at} off the scale")


def old_ink(cell) -> tuple:
    """Plotly's own choice for a heatmap's text with no colour set (plotly.js Color.contrast):
    white on a cell whose YIQ brightness is under 128, else #444."""
    red, green, blue = cell
    return WHITE if (299 * red + 587 * green + 114 * blue) / 1000 < 128 else to_rgb("#444444")


def printed_labels(fig) -> dict:
    """Every label printed on a heatmap's cells as the browser draws it: {(row, column): (text,
    ink, cell, trace index)}, ink and cell (r, g, b). plotly.js draws the heatmap traces in
    order, each its cells (those with a finite z) and then its text (wherever it is not empty,
    a cell painted or not), so a later trace's cell covers an earlier one's text. A text with
    no colour set gets Plotly's own (``old_ink``); a cell no trace paints is the plot's white."""
    heat = [(k, trace) for k, trace in enumerate(fig.data) if trace.type == "heatmap"]
    shape = np.shape(heat[0][1].z)
    cell = np.full(shape, None, dtype=object)
    label = np.full(shape, None, dtype=object)
    for k, trace in heat:
        z = np.asarray(trace.z, dtype=np.float64)
        for i, j in zip(*np.nonzero(np.isfinite(z))):
            cell[i, j], label[i, j] = painted(trace, z[i, j]), None
        if trace.text is None or not trace.texttemplate:
            continue
        colour = trace.textfont.color
        for (i, j), text in np.ndenumerate(np.asarray(trace.text, dtype=object)):
            if str(text):
                label[i, j] = (str(text), colour, k)
    out = {}
    for (i, j), written in np.ndenumerate(label):
        if written is not None:
            text, colour, k = written
            under = WHITE if cell[i, j] is None else cell[i, j]
            out[i, j] = (text, old_ink(under) if colour is None else to_rgb(colour), under, k)
    return out


def lowest(fig) -> float:
    return min(ratio(ink, cell) for _, ink, cell, _ in printed_labels(fig).values())


RNG = np.random.default_rng(64)
SWEEP = np.linspace(-1, 1, 24 * 24).reshape(24, 24)  # every colour of a scale, 576 steps
CAUSAL = ~np.tril(np.ones((6, 6), dtype=bool))
TOKENS6 = list("abcdef")


def _softmax(S, forbidden=None):
    S = np.where(forbidden, -np.inf, S) if forbidden is not None else S
    e = np.exp(S - S.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _figures():
    """The heatmaps that print numbers, over the whole of each scale."""
    ticks = [str(i) for i in range(24)]
    yield "signed sweep", heatmap(SWEEP * 3, ticks, ticks)
    yield "signed, shared bound", heatmap(SWEEP[:8, :8] * 2, ticks[:8], ticks[:8], bound=2.5)
    yield "signed, narrowest", heatmap(SWEEP[:6] * 5, ticks[:6], ticks, narrowest=300)
    for seed in range(3):
        M = np.random.default_rng(seed).normal(size=(5, 8)) * (seed + 1)
        yield f"signed random {seed}", heatmap(M, list("abcde"), ticks[:8], decimals=seed + 1)
    yield "unit sweep", heatmap((SWEEP + 1) / 2, ticks, ticks, scale="unit")
    S = RNG.normal(size=(6, 6)) * 3
    yield "A", A_heatmap(_softmax(S), TOKENS6, title="A")
    yield "A masked", A_heatmap(_softmax(S, CAUSAL), TOKENS6, title="A", forbidden=CAUSAL)
    masked = np.where(CAUSAL, -np.inf, S)
    yield "scores masked", heatmap(masked, TOKENS6, TOKENS6, forbidden=CAUSAL, square=True)
    for name, allowed in (("causal", ~CAUSAL), ("padding", np.arange(6) < 4)):
        allowed = np.broadcast_to(allowed, (6, 6))
        legend = ("allowed (1)", "hidden (0)")
        yield f"mask {name}", mask_heatmap(allowed, TOKENS6, TOKENS6, title="M", legend=legend)
    p = np.linspace(0, 1, 12 * 10).reshape(12, 10)
    pieces = [[f"w{i}{j}" for j in range(10)] for i in range(12)]
    yield "lens", piece_map(pieces, p, [f"L{i}" for i in range(12)], ticks[:10], "lens", "p")


FIGURES = list(_figures())


@pytest.mark.parametrize("name, fig", FIGURES, ids=[name for name, _ in FIGURES])
def test_every_printed_number_reads_at_4_5_to_1_on_its_own_cell(name, fig):
    labels = printed_labels(fig).values()
    assert labels, name
    weak = [(text, ratio(ink, cell)) for text, ink, cell, _ in labels if ratio(ink, cell) < 4.5]
    assert not weak, (name, weak[:5], len(weak))


@pytest.mark.parametrize("name, fig", FIGURES, ids=[name for name, _ in FIGURES])
def test_every_value_is_still_printed_where_the_values_trace_put_it(name, fig):
    """The white text over the dark cells hides the values' black text there and says the same:
    each cell shows its value (a masked cell, which the values do not paint, the mask's symbol),
    every text at one size, and no later trace writes where it does not paint."""
    values = fig.data[0]
    z = np.asarray(values.z, dtype=np.float64)
    expected = np.asarray(values.text, dtype=object)
    if not np.isfinite(z).all():  # the masked cells' overlay comes next (heatmap()'s order)
        expected = np.where(np.isfinite(z), expected, np.asarray(fig.data[1].text, dtype=object))
    shown = {at: text for at, (text, _, _, _) in printed_labels(fig).items()}
    assert shown == {at: text for at, text in np.ndenumerate(expected) if text}, name
    for trace in fig.data[1:]:
        if trace.type == "heatmap" and trace.text is not None:
            written = np.asarray(trace.text, dtype=object) != ""
            assert np.isfinite(np.asarray(trace.z, dtype=np.float64)[written]).all(), name
    sizes = {t.textfont.size for t in fig.data if t.type == "heatmap" and t.text is not None}
    assert len(sizes) == 1, (name, sizes)


def test_plotlys_own_text_colours_fail_on_the_same_cells():
    """The check can fail: the same sweep with Plotly choosing the text colour (#444 or white
    by brightness, as before) prints numbers under 4.5:1, and −∞ in #555 on the grey does too."""
    fig = heatmap(SWEEP * 3, None, None)
    plain = go.Figure(go.Heatmap(fig.data[0]))
    plain.data[0].textfont.color = None
    assert lowest(plain) < 3.5  # about 3.2 on the reds (#444 on #df755d-like cells)
    flat = [[0, MASKED_GREY], [1, MASKED_GREY]]
    grey = go.Figure(go.Heatmap(z=[[1.0]], colorscale=flat, text=[["−∞"]], texttemplate="%{text}",
                                textfont_color="#555555"))  # fmt: skip
    assert lowest(grey) < 4.5


def test_palettes_luminance_and_contrast_agree_with_the_formula():
    colours = ["#000000", "#FFFFFF", MASKED_GREY, *HEAD_COLOURS, "#df755d", "#444444"]
    for a, b in itertools.product(colours, repeat=2):
        assert contrast(a, b) == pytest.approx(ratio(to_rgb(a), to_rgb(b)), rel=1e-9)
    rgb = np.array([to_rgb(c) for c in colours])
    np.testing.assert_allclose(relative_luminance(rgb), [luminance(c) for c in rgb], rtol=1e-12)


TEXT_COLOURS = sorted({*COLOURS.values(), *HEAD_COLOURS, *SERIES.values(), *LINE_COLOURS})


@pytest.mark.parametrize("colour", TEXT_COLOURS)
def test_each_colour_written_as_text_reads_on_white(colour):
    """ink(): 4.5:1 on white; its own hue, darkened no further than needed (under 4.6:1), unless
    it reads already (kept) or is pale (dark grey, beside a swatch of the colour)."""
    shade = ink(colour)
    assert ratio(to_rgb(shade), WHITE) >= 4.5, (colour, shade)
    if colour in PALE:
        return
    if ratio(to_rgb(colour), WHITE) >= 4.5:
        assert shade == colour
        return
    hue = colorsys.rgb_to_hsv(*(c / 255 for c in to_rgb(colour)))
    hue_shade = colorsys.rgb_to_hsv(*(c / 255 for c in to_rgb(shade)))
    assert hue_shade[0] == pytest.approx(hue[0], abs=0.005), (colour, shade)  # same hue
    assert hue_shade[1] == pytest.approx(hue[1], abs=0.01), (colour, shade)  # as saturated
    assert ratio(to_rgb(shade), WHITE) < 4.6, (colour, shade)


def test_titles_and_head_bands_are_written_in_readable_shades():
    """A head's title and its band's label, in every head colour."""
    bands = [(2 * h, 2 * h + 2, colour, f"head {h}") for h, colour in enumerate(HEAD_COLOURS)]
    M = np.zeros((2, 2 * len(HEAD_COLOURS)))
    for colour in HEAD_COLOURS:
        fig = heatmap(M, list("ab"), None, title="Q", title_colour=colour, column_bands=bands)
        written = [fig.layout.title.font.color] + [a.font.color for a in fig.layout.annotations]
        assert len(written) == 1 + len(HEAD_COLOURS)
        for shade in written:
            assert ratio(to_rgb(shade), WHITE) >= 4.5, (colour, shade)


def _styles(fig) -> list[tuple]:
    return [(trace.line.dash, trace.marker.symbol) for trace in fig.data]


def _lines(count: int, **options):
    series = {f"s{i}": np.arange(3) + i for i in range(count)}
    return line_chart([1, 2, 3], series, title="", x_title="", y_title="", **options)


@pytest.mark.parametrize("count", [2, 3, 6, 7, 12])
def test_lines_differ_by_dash_or_marker_as_well_as_colour(count):
    """Any number of series, each its own (dash, marker); the first six each its own dash and
    its own marker, in the palette's order beside LINE_COLOURS."""
    styles = _styles(_lines(count))
    assert len(set(styles)) == count, styles
    first = styles[:6]
    assert len({dash for dash, _ in first}) == len({symbol for _, symbol in first}) == len(first)


@pytest.mark.parametrize(
    "dashes",
    [
        ["solid", "solid", "dash"],  # /train's losses: two losses and chance
        ["solid"] * 4 + ["dash"] * 4,  # /train's scores: a colour per head, dashed induction
        ["solid" if c % 2 == 0 else "dash" for c in (0, 2, 4, 6, 8, 10, 1)],  # PE: cosines dashed
    ],
)
def test_lines_whose_page_sets_the_dashes_still_differ(dashes):
    colours = [LINE_COLOURS[j % 4] for j in range(4)] * 2  # a colour repeated, as /train's scores
    fig = _lines(len(dashes), dashes=dashes, colours=colours[: len(dashes)])
    styles = _styles(fig)
    assert [dash for dash, _ in styles] == dashes  # the page's dashes are kept
    assert len(set(styles)) == len(dashes), styles


def test_a_line_only_its_colour_tells_apart_reads_at_3_to_1():
    """Non-text contrast (WCAG 1.4.11): a line colour under 3:1 on white (orange) is never a
    line's only difference, since every line has its own dash and marker; the others reach 3:1."""
    weak = [c for c in LINE_COLOURS if ratio(to_rgb(c), WHITE) < 3]
    assert weak == ["#E69F00"]
    assert len(set(_styles(_lines(len(LINE_COLOURS))))) == len(LINE_COLOURS)
