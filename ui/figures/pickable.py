"""Click a cell: an invisible marker on every cell of a heatmap makes it selectable through
Streamlit's Plotly selection events (a heatmap's own cells send none), and the selection comes
back as (row, column)."""

import numpy as np
import plotly.graph_objects as go

from ui.figures.palette import MAX_SIDE, SharedFigure

OUTLINE = "#000000"
HOVER = "%{customdata[0]} → %{customdata[1]}: %{customdata[2]:.6f}<extra></extra>"


def pickable(fig, M: np.ndarray, row_labels, col_labels) -> go.Figure:
    """``fig`` made clickable, built once per heatmap: the heatmaps are shared between sessions
    (ui/kit/shared_cache.py), and so is each one's clickable copy, kept on the heatmap itself (two
    sessions racing may both build it; either copy is the same)."""
    made = fig.__dict__.get("_pickable")
    if made is None:
        made = fig.__dict__["_pickable"] = _build(fig, M, row_labels, col_labels)
    return made


def _build(fig, M: np.ndarray, row_labels, col_labels) -> go.Figure:
    """A copy of ``fig`` with one invisible square marker per cell; the selected one is outlined.
    Its hover says the cell's row, column and value, as the heatmap's own hover did."""
    rows, cols = M.shape
    i, j = np.divmod(np.arange(rows * cols), cols)
    # a marker no larger than its cell: where markers overlap, a click picks the wrong one
    height = (fig.layout.height or 400) - 70  # the plot area, without title and axis labels
    size = max(6, min(40, int(0.8 * height / rows), int(0.8 * 600 / cols)))
    values = np.asarray(M, dtype=np.float64).ravel()
    custom = np.stack(
        [np.asarray(row_labels, dtype=object)[i], np.asarray(col_labels, dtype=object)[j], values],
        axis=1,
    )
    fig = SharedFigure(fig)
    fig.add_trace(
        go.Scatter(
            x=j,
            y=i,
            mode="markers",
            marker={"symbol": "square-open", "size": size, "color": OUTLINE, "opacity": 0.0,
                    "line": {"width": 3}},
            selected={"marker": {"opacity": 1.0}},
            unselected={"marker": {"opacity": 0.0}},
            customdata=custom,
            hovertemplate=HOVER,
            showlegend=False,
            name="",
        )
    )  # fmt: skip
    fig.update_layout(clickmode="event+select")
    # the axes end at the cells' edges: markers would pad an automatic range by their size
    fig.update_xaxes(range=[-0.5, cols - 0.5], autorange=False)
    fig.update_yaxes(range=[rows - 0.5, -0.5], autorange=False)  # the first row on top
    return fig


def can_pick(M: np.ndarray) -> bool:
    """Cells are drawn one by one (no block averaging), so each can be clicked."""
    return max(M.shape) <= MAX_SIDE


def picked(state) -> tuple[int, int] | None:
    """The (row, column) a chart's selection state holds, or None."""
    try:
        points = state["selection"]["points"]
    except (KeyError, TypeError):
        return None
    for point in points or ():
        if "x" in point and "y" in point:
            return int(round(point["y"])), int(round(point["x"]))
    return None
