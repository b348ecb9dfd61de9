"""The figures' colours, scales and sizes: one hue per role (Q, K, V, O), per head and per named
series, the colour-blind-safe scales, the text colours that read on them (WCAG 2.2's contrast:
4.5:1 for text), and the figure a class shares."""

from functools import lru_cache

import numpy as np
import plotly.graph_objects as go
from plotly.colors import get_colorscale, hex_to_rgb, unlabel_rgb

SIGNED_SCALE = "RdBu_r"  # diverging, centred on 0: scores, projections, any signed matrix
WEIGHT_SCALE = "Viridis"  # sequential, colour-blind safe: weights in [0, 1]
MASKED_GREY = "#c8c8c8"
MAX_SIDE = 160  # larger matrices are block-averaged down to at most this many cells a side
MAX_TEXT_CELLS = 24  # print values in cells only when both sides are at most this
BAR_ROOM = 48  # px over a square heatmap, between its title and its plot: the colour bar
NOTE_ROOM = 48  # px right of the cells for the row notes ("Σ=1.00")
MAX_TICK_CHARS = 8  # longer token labels are shortened on the axes (the hover has positions)
TEXT_PX = 12  # px: cell values of a heatmap fitted to the narrowest screen (``narrowest``)
TICK_PX = 12  # px: Plotly's tick labels
TICK_GAP = 3  # px at least between two upright column labels
CELL_PAD = 4  # px beside a printed value, both sides together

# Okabe-Ito: eight colours told apart with any colour vision, and on a washed-out projector
BLACK, ORANGE, SKY_BLUE, GREEN = "#000000", "#E69F00", "#56B4E9", "#009E73"
YELLOW, BLUE, VERMILLION, PURPLE = "#F0E442", "#0072B2", "#D55E00", "#CC79A7"
PALE = frozenset({SKY_BLUE, YELLOW})  # too light for text or thin lines on white
DARK_GREY = "#333333"  # text in place of a pale colour, and −∞ on MASKED_GREY (7.6:1)
WHITE = "#FFFFFF"
TEXT_CONTRAST = 4.5  # WCAG 2.2 AA: text against what is behind it
# each colour's own hue, its channels scaled down (HSV value) until it reads on white at 4.5:1:
# vermillion 3.87 -> 4.52, green 3.42 -> 4.52, purple 3.06 -> 4.53, orange 2.25 -> 4.53
INK_SHADES = {VERMILLION: "#C35600", GREEN: "#008763", PURPLE: "#A46186", ORANGE: "#9E6D00"}

COLOURS = {"Q": BLUE, "K": VERMILLION, "V": GREEN, "O": PURPLE}  # one hue per role
HEAD_COLOURS = (
    BLUE,
    VERMILLION,
    GREEN,
    PURPLE,
    ORANGE,
    BLACK,
    SKY_BLUE,
    YELLOW,
)  # head h is always this colour; the pale ones only appear with 7 or 8 heads
SERIES = {  # one colour per named series on every chart
    "unscaled": VERMILLION,
    "scaled": BLUE,
    "loop": ORANGE,
    "matrix": GREEN,
    "wrong": VERMILLION,
    "right": BLUE,
}
LINE_COLOURS = (BLUE, VERMILLION, GREEN, PURPLE, ORANGE, BLACK)  # line charts, in order
# and, beside each colour, a dash and a marker: lines are told apart without colour too
LINE_DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
LINE_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "cross")
# bars likewise: each series of a bar chart its own fill pattern (Plotly's marker.pattern.shape),
# shown in the legend's swatch too, so bars are told apart without colour
BAR_PATTERNS = ("", "/", "\\", "x", ".", "+", "-", "|")
RIGHT_PATTERN = "."  # the right answer's bar, once revealed (its label ticked as well)
CUT_PATTERN = "/"  # a candidate the rules cut: hatched grey ...
CUT_OUTLINE = "#767676"  # ... outlined at 4.5:1 on white (non-text contrast asks 3:1)
MASK_COLOURS = {"allowed": BLUE, "forbidden": MASKED_GREY}  # a 0/1 mask: two colours only
MASK_SCALE = [[0, MASKED_GREY], [0.5, MASKED_GREY], [0.5, BLUE], [1, BLUE]]  # 0 grey, 1 blue


def ink(colour: str | None) -> str | None:
    """A colour to write text in on white, at 4.5:1 at least: its darker shade (INK_SHADES), or,
    for a pale one, dark grey (its swatch carries the colour)."""
    return DARK_GREY if colour in PALE else INK_SHADES.get(colour, colour)


def rgb(colour: str) -> tuple[float, float, float]:
    """A colour as Plotly writes one ("#rrggbb", "rgb(r, g, b)"): red, green, blue in 0-255."""
    if colour.startswith("#"):
        return tuple(float(c) for c in hex_to_rgb(colour))
    return tuple(float(c) for c in unlabel_rgb(colour)[:3])


def relative_luminance(rgb_255) -> np.ndarray:
    """WCAG 2.2's relative luminance of sRGB colours, [..., 3] in 0-255: 0 black, 1 white."""
    c = np.asarray(rgb_255, dtype=np.float64) / 255.0
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return linear @ np.array([0.2126, 0.7152, 0.0722])


def contrast(a, b) -> np.ndarray:
    """WCAG's contrast ratio (1 to 21) between colours: each a string or [..., 3] in 0-255."""
    la, lb = (relative_luminance(rgb(c) if isinstance(c, str) else c) for c in (a, b))
    return (np.maximum(la, lb) + 0.05) / (np.minimum(la, lb) + 0.05)


@lru_cache(maxsize=32)
def _stops(colorscale) -> tuple[np.ndarray, np.ndarray]:
    """A colour scale (a name, or (stop, colour) pairs) as its stops and their RGB."""
    pairs = get_colorscale(colorscale) if isinstance(colorscale, str) else colorscale
    return np.array([float(s) for s, _ in pairs]), np.array([rgb(c) for _, c in pairs])


def cell_rgb(z, colorscale, zmin: float, zmax: float) -> np.ndarray:
    """The colour a heatmap paints each value of z, [..., 3] in 0-255 (NaN where z is not
    finite), as plotly.js does: the value clamped to [zmin, zmax], the colour interpolated
    linearly in RGB between the scale's stops, each channel rounded."""
    stops, colours = _stops(colorscale if isinstance(colorscale, str) else _pairs(colorscale))
    z = np.asarray(z, dtype=np.float64)
    at = np.clip((z - zmin) / (zmax - zmin) if zmax > zmin else np.zeros_like(z), 0.0, 1.0)
    painted = np.stack([np.interp(at, stops, colours[:, k]) for k in range(3)], axis=-1)
    return np.where(np.isfinite(z)[..., None], np.round(painted), np.nan)


def _pairs(colorscale) -> tuple:
    """(stop, colour) pairs, hashable (a trace's scale comes back as tuples or lists)."""
    return tuple((float(stop), str(colour)) for stop, colour in colorscale)


def ink_on(cell) -> np.ndarray:
    """Black or white text, whichever contrasts more with each cell colour ([..., 3] in 0-255;
    a cell not painted is the plot's white): at least 4.58:1 on any colour."""
    cell = np.where(np.isnan(cell), 255.0, cell)
    light = relative_luminance(cell) > np.sqrt(1.05 * 0.05) - 0.05  # equal contrast either way
    return np.where(light, BLACK, WHITE).astype(object)


def cell_ink(z, colorscale, zmin: float, zmax: float) -> np.ndarray:
    """The text colour for each cell of a heatmap (black or white), from the colour painted."""
    return ink_on(cell_rgb(z, colorscale, zmin, zmax))


class SharedFigure(go.Figure):
    """A finished figure drawn by many sessions: its dict (what Streamlit sends) is made once."""

    def to_dict(self):
        if "_as_dict" not in self.__dict__:
            self.__dict__["_as_dict"] = super().to_dict()
        return self.__dict__["_as_dict"]
