"""The figures' colours, scales and sizes: one hue per role (Q, K, V, O), per head and per named
series, the colour-blind-safe scales, and the figure a class shares."""

import plotly.graph_objects as go

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
MASK_COLOURS = {"allowed": BLUE, "forbidden": MASKED_GREY}  # a 0/1 mask: two colours only
MASK_SCALE = [[0, MASKED_GREY], [0.5, MASKED_GREY], [0.5, BLUE], [1, BLUE]]  # 0 grey, 1 blue


def ink(colour: str | None) -> str | None:
    """A colour to write text in: a pale one is replaced by dark grey (its swatch carries it)."""
    return "#333333" if colour in PALE else colour


class SharedFigure(go.Figure):
    """A finished figure drawn by many sessions: its dict (what Streamlit sends) is made once."""

    def to_dict(self):
        if "_as_dict" not in self.__dict__:
            self.__dict__["_as_dict"] = super().to_dict()
        return self.__dict__["_as_dict"]
