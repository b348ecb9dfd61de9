"""The learner's result as a heatmap beside the walkthrough's, on one colour range, and their
difference cell by cell (or a note where the shapes differ): the heatmaps the walkthrough draws,
with the tokens on the axes. Side by side on a laptop, two by two on a projector (as tall as the
screen leaves, as a walkthrough step's chart), stacked on a phone."""

import numpy as np
import streamlit as st

from ui.figures.axes import pair_axes, token_axes
from ui.figures.heatmaps import A_heatmap, heatmap
from ui.figures.place import grid
from ui.kit.i18n import t
from ui.kit.number_text import indices

PAIRS = ("S", "S_scaled", "S_masked", "A")  # query × key matrices: tokens on both axes


def _labels(M, step: str, tokens: list, base: int) -> tuple[list, list]:
    """Row and column labels: the tokens where a side has one per token, else positions."""
    rows, cols = M.shape
    row_labels = tokens if rows == len(tokens) else indices(rows, base)
    pair = step in PAIRS and cols == len(tokens)
    return row_labels, tokens if pair else indices(cols, base)


def _weights(M) -> bool:
    """Numbers in [0, 1] (where finite): drawn as attention weights are."""
    finite = M[np.isfinite(M)]
    return finite.size > 0 and finite.min() >= -1e-9 and finite.max() <= 1 + 1e-9


def _top(*matrices) -> float:
    """One colour range for two maps: the largest finite |value| of both (never 0)."""
    tops = [np.abs(M[np.isfinite(M)]).max() for M in matrices if np.isfinite(M).any()]
    return float(max(tops, default=1.0)) or 1.0


def _figure(
    M,
    step: str,
    title: str,
    tokens: list,
    settings,
    bound: float,
    forbidden=None,
    weights: bool = False,
    hidden_text: str = "−∞",
):
    """One map of ``M``: with ``weights`` as A is drawn (on [0, 1], its row sums beside it),
    else on the signed scale; the ``forbidden`` cells (by default the −∞ ones) grey, written
    ``hidden_text``."""
    rows, cols = _labels(M, step, tokens, settings.base)
    axes = (pair_axes if step in PAIRS else token_axes)(settings.decimals)
    axes["square"] = cols is tokens  # query × key: square cells, as the walkthrough's
    if forbidden is None and np.isneginf(M).any():
        forbidden = np.isneginf(M)
    if weights:
        return A_heatmap(M, tokens, title=title, forbidden=forbidden, **axes)
    return heatmap(M, rows, cols, title=title, bound=bound, forbidden=forbidden,
                   forbidden_text=hidden_text, **axes)  # fmt: skip


def difference(value, right) -> tuple[np.ndarray, np.ndarray]:
    """value − right cell by cell (0 where both hold the same infinity), and where they cannot
    be subtracted (one infinite, the other not, or NaN)."""
    same_inf = np.isinf(value) & (value == right)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.where(same_inf, 0.0, value - right)
    return diff, ~np.isfinite(diff)


def draw(step: str, value, right, data, settings, key: str) -> None:
    """Yours, the walkthrough's and, where the shapes agree, their difference."""
    if value is None or value.ndim != 2:  # the verdict has said what it is instead
        return
    tokens, bound = list(data.tokens), _top(value, right)
    masked = None if data.mask is None or step != "A" else ~np.asarray(data.mask, bool)
    yours = _figure(value, step, t("practice.chart_yours", name=step), tokens, settings, bound,
                    weights=step == "A" and _weights(value))  # fmt: skip
    theirs = _figure(right, step, t("practice.chart_right", name=step), tokens, settings, bound,
                     masked, weights=step == "A")  # fmt: skip
    items = [(yours, f"{key}_yours"), (theirs, f"{key}_right")]
    if value.shape == right.shape:
        diff, broken = difference(value, right)
        fig = _figure(
            np.where(broken, 0.0, diff),
            step,
            t("practice.chart_difference"),
            tokens,
            settings,
            _top(diff),
            broken if broken.any() else None,
            hidden_text="≠",
        )
        items.append((fig, f"{key}_difference"))
    per_row = 2 if settings.presentation else len(items)  # a projector: two at a time, as
    grid(items, per_row=per_row, fill=True)  # tall as the screen leaves (a walkthrough step's)
    if value.shape != right.shape:
        st.caption(t("practice.no_cell_by_cell"))
