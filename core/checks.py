"""Checks on matrices before they are multiplied: shapes that fit, numbers that are finite."""

import numpy as np
from array_api_compat import array_namespace

from core.backend import to_numpy
from core.errors import InputError


def check_matmul(left_shape, right_shape, left_name: str = "", right_name: str = "") -> None:
    """InputError unless left @ right fits: the last axis of left equals the first of right."""
    left, right = list(left_shape), list(right_shape)
    inner_left, inner_right = left[-1], right[-2 if len(right) > 1 else 0]
    if inner_left != inner_right:
        raise InputError(
            "shape_mismatch",
            left=f"{left_name} {left}".strip(),
            right=f"{right_name} {right}".strip(),
            inner_left=inner_left,
            inner_right=inner_right,
        )


def check_finite(name: str, matrix) -> None:
    """InputError when ``matrix`` holds NaN or an infinity (say, typed by a learner)."""
    xp = array_namespace(matrix)
    if bool(xp.all(xp.isfinite(matrix))):
        return
    values = np.asarray(to_numpy(matrix), dtype=np.float64)
    bad = ~np.isfinite(values)
    if bad.any():  # always true here; the host copy only finds which value to name
        raise InputError("non_finite", name=name, value=float(values[bad][0]))


def check_shape(name: str, matrix, expected) -> None:
    """InputError when ``matrix`` does not have shape ``expected``."""
    if tuple(matrix.shape) != tuple(expected):
        raise InputError("bad_shape", name=name, expected=list(expected), actual=list(matrix.shape))


def check_heads(width: int, n_heads: int, name: str) -> int:
    """Per-head width of a projection with ``width`` columns split over ``n_heads``."""
    if isinstance(n_heads, bool) or not isinstance(n_heads, int) or n_heads <= 0:
        raise InputError("non_positive", name="n_heads", value=n_heads)
    if width % n_heads:
        raise InputError("heads_do_not_divide", d_model=width, n_heads=n_heads)
    return width // n_heads


def check_no_overflow(step: str, matrix) -> None:
    """InputError "overflow" when a step computed from finite numbers left the dtype's range."""
    xp = array_namespace(matrix)
    if not bool(xp.all(xp.isfinite(matrix))):
        limit = float(np.finfo(_dtype_name(matrix)).max)
        raise InputError("overflow", step=step, dtype=_dtype_name(matrix), limit=limit)


def scores_cannot_overflow(Q, K, d_k: int | None = None) -> bool:
    """True when no entry of Q Kᵀ, nor any partial sum of one, can leave Q's dtype's range.

    Every partial sum of q·k is at most Σ|q_c k_c| <= d_k · max|Q| · max|K| in size, so below
    the dtype's largest number (with room for rounding) the product is finite. Two passes over
    [..., n, d_k] replace a pass over the n x n scores; only above the bound are they checked.
    Q and K may also be the projections before they are split into heads (then give ``d_k``).
    """
    xp = array_namespace(Q)
    if Q.size == 0 or K.size == 0:
        return True
    bound = float(xp.max(xp.abs(Q))) * float(xp.max(xp.abs(K))) * (d_k or Q.shape[-1])
    return bound < 0.5 * float(np.finfo(_dtype_name(Q)).max)


def _dtype_name(matrix) -> str:
    return str(matrix.dtype).rsplit(".", 1)[-1]  # "float32" for NumPy, CuPy and array-api-strict


def validate(X, weights, n_heads: int, mask=None) -> tuple[int, int]:
    """InputError unless the shapes fit and the numbers are finite; returns (d_k, d_v)."""
    if X.ndim not in (2, 3):
        raise ValueError(f"X must be [n, d_model] or [b, n, d_model], got shape {tuple(X.shape)}")
    for name, W in (("W_Q", weights.W_Q), ("W_K", weights.W_K), ("W_V", weights.W_V)):
        check_matmul(X.shape, W.shape, "X", name)
    check_shape("W_K", weights.W_K, weights.W_Q.shape)
    d_k = check_heads(weights.W_Q.shape[1], n_heads, "W_Q")
    d_v = check_heads(weights.W_V.shape[1], n_heads, "W_V")
    check_matmul((*X.shape[:-1], weights.W_V.shape[1]), weights.W_O.shape, "concat", "W_O")
    for name, M in (("X", X), *vars(weights).items()):
        check_finite(name, M)
    n = X.shape[-2]
    if mask is not None and tuple(mask.shape[-2:]) != (n, n):
        check_shape("mask", mask, (*mask.shape[:-2], n, n))
    return d_k, d_v
