"""The head gallery's tiles: every head's map, block-reduced to a small square, in one figure."""

import math

import numpy as np
import plotly.graph_objects as go

from ui.figures.palette import SharedFigure
from ui.kit.escape import plotly_text
from ui.kit.shared_cache import shared

TILE_SIDE = 20  # each head's map in the gallery, in blocks: at most this many cells a side


def _block_max(M: np.ndarray, side: int) -> np.ndarray:
    """M in blocks of at most ``side`` a side, each block its largest value (0 where padded)."""
    rows, cols = M.shape
    b = max(1, math.ceil(max(rows, cols) / side))
    pad = np.zeros((math.ceil(rows / b) * b, math.ceil(cols / b) * b))
    pad[:rows, :cols] = M
    return pad.reshape(pad.shape[0] // b, b, pad.shape[1] // b, b).max(axis=(1, 3))


@shared(max_entries=16)
def head_tiles(
    maps,
    layer_labels,
    head_labels,
    title: str,
    layers_across: bool,
    side: int = TILE_SIDE,
    tile_px: int | None = None,
) -> go.Figure:
    """Every head's attention map at once, maps[layer][head] [n, n], as small square tiles in
    one heatmap (a gap between tiles): the layers across and the heads down on a wide screen
    (``layers_across``), the layers down on a phone. Each block of cells shows its largest
    weight, so that a one-cell-wide stripe (a previous-token or an induction head) stays as
    bright as it is instead of being averaged away (at most ``side`` blocks a side; ``tile_px``
    the height a tile is given). Shared: never change it."""
    tiles = [[_block_max(np.asarray(A, dtype=float), side) for A in row] for row in maps]
    row_labels, col_labels = layer_labels, head_labels
    if layers_across:
        tiles = [list(column) for column in zip(*tiles, strict=True)]
        row_labels, col_labels = head_labels, layer_labels
    side = tiles[0][0].shape[0]
    gap = np.full((side, 1), np.nan)
    rows = [np.hstack([part for tile in row for part in (tile, gap)][:-1]) for row in tiles]
    blank = np.full((1, rows[0].shape[1]), np.nan)
    z = np.vstack([part for row in rows for part in (row, blank)][:-1])
    centre = (side - 1) / 2
    fig = SharedFigure(
        go.Heatmap(z=z, zmin=0.0, zmax=1.0, colorscale="Viridis", showscale=False,
                   hovertemplate="%{z:.2f}<extra></extra>")
    )  # fmt: skip
    if tile_px is None:  # the height a tile gets: square at the usual widths
        tile_px = 50 if layers_across else 76
    fig.update_layout(
        title={"text": plotly_text(title), "x": 0},
        height=tile_px * len(row_labels) + 90,
        xaxis={"tickvals": [centre + h * (side + 1) for h in range(len(col_labels))],
               "ticktext": list(col_labels), "side": "top", "showgrid": False, "tickangle": 0,
               "constrain": "domain"},
        yaxis={"tickvals": [centre + i * (side + 1) for i in range(len(row_labels))],
               "ticktext": list(row_labels), "autorange": "reversed", "showgrid": False,
               "scaleanchor": "x", "constrain": "domain"},
        margin={"l": 10, "r": 10, "t": 70, "b": 10},
        plot_bgcolor="white",
        meta={"labels_on_top": True},  # a projector makes room for them under the title
    )  # fmt: skip
    return fig
