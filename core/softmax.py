"""Row-wise softmax that never overflows and never makes NaN, with -inf meaning "forbidden"."""

import numpy as np
from array_api_compat import array_namespace


def softmax_rows(Z, overwrite: bool = False):
    """softmax(Z) along the last axis; -inf entries get weight exactly 0, an all -inf row all 0.

    Subtracting the row maximum keeps exp() <= 1, so scores of 1e8 do not overflow.
    With ``overwrite`` the input's memory is reused (the caller no longer needs Z).
    """
    xp = array_namespace(Z)
    row_max = xp.max(Z, axis=-1, keepdims=True)  # [..., n, 1]
    row_max = xp.where(xp.isfinite(row_max), row_max, 0.0)  # no allowed key: -inf - 0 stays -inf
    if overwrite:
        Z -= row_max
        E = _exp_inplace(Z, xp)  # [..., n, n]
    else:
        E = xp.exp(Z - row_max)  # [..., n, n]; exp(-inf) = 0 exactly
    row_sum = xp.sum(E, axis=-1, keepdims=True)  # [..., n, 1]
    E /= xp.where(row_sum > 0, row_sum, 1.0)  # an all-zero row stays all zero, never 0/0
    return E


def _exp_inplace(Z, xp):
    """exp(Z), writing into Z when the backend has ``out=`` (NumPy, CuPy), else a fresh array."""
    if isinstance(Z, np.ndarray):
        return np.exp(Z, out=Z)
    if type(Z).__module__.startswith("cupy"):
        import cupy

        return cupy.exp(Z, out=Z)
    return xp.exp(Z)
