"""Four common mistakes, each computed on purpose, so a learner can see what goes wrong."""

import math

import numpy as np

from core.checks import check_matmul
from core.softmax import softmax_along


def softmax_wrong_axis(scaled: np.ndarray) -> np.ndarray:
    """Mistake 1: softmax down the columns (queries): columns sum to 1, rows do not."""
    return softmax_along(scaled, axis=-2)


def scores_without_transpose(Q: np.ndarray, K: np.ndarray) -> np.ndarray:
    """Mistake 2: Q @ K instead of Q @ Kᵀ: InputError unless the shapes happen to fit."""
    check_matmul(Q.shape, K.shape, "Q", "K")
    return Q @ K  # only when n == d_k, and then the numbers are meaningless


def mask_after_softmax(scaled: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """Mistake 3: softmax over every key, then zero the forbidden ones: rows no longer sum to 1,
    and the hidden keys still shaped the other weights."""
    return softmax_along(scaled, axis=-1) * allowed


def scale_by_d_v(scores: np.ndarray, d_v: int) -> np.ndarray:
    """Mistake 4: d_k and d_v mixed up, dividing the scores by sqrt(d_v) instead of sqrt(d_k)."""
    return softmax_along(scores / math.sqrt(d_v), axis=-1)
