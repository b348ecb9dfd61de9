"""Row-wise softmax that never overflows and never makes NaN, with -inf meaning "forbidden"."""

import numpy as np
from array_api_compat import array_namespace

from core import threads


def softmax_rows(Z, overwrite: bool = False, out=None):
    """softmax(Z) along the last axis; -inf entries get weight exactly 0, an all -inf row all 0.

    Subtracting the row maximum keeps exp() <= 1, so scores of 1e8 do not overflow.
    With ``overwrite`` the input's memory is reused (the caller no longer needs Z); ``out``
    (NumPy only) is an array of Z's shape to write the result into.
    """
    large = Z.size >= CHUNKED_FROM or out is not None
    if isinstance(Z, np.ndarray) and Z.shape[-1] > 0 and large:
        if out is None:
            out = Z if overwrite and Z.flags.c_contiguous else np.empty(Z.shape, Z.dtype)
        return _softmax_rows_chunked(Z, out)
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


def softmax_along(Z, axis: int):
    """softmax_rows along ``axis`` (attention's is the key axis, -1; the mistakes page also
    takes it down the columns)."""
    xp = array_namespace(Z)
    return xp.moveaxis(softmax_rows(xp.moveaxis(Z, axis, -1)), -1, axis)


CHUNKED_FROM = threads.PARALLEL_FROM  # entries; below this one pass over the whole array is enough


def softmax_block(z: np.ndarray, e: np.ndarray) -> None:
    """The softmax of the rows of z [rows, n] into e (which may be z itself), NumPy only: max,
    subtract, exp, sum, divide while the block is still in cache."""
    row_max = z.max(axis=1, keepdims=True)
    row_max[~np.isfinite(row_max)] = 0.0  # no allowed key: -inf - 0 stays -inf
    np.subtract(z, row_max, out=e)
    np.exp(e, out=e)  # exp(-inf) = 0 exactly
    row_sum = e.sum(axis=1, keepdims=True)
    row_sum[row_sum == 0] = 1.0  # an all-zero row stays all zero, never 0/0
    np.divide(e, row_sum, out=e)


def _softmax_rows_chunked(Z: np.ndarray, out: np.ndarray) -> np.ndarray:
    """The same softmax for large NumPy arrays, a cache-sized block of rows at a time, the blocks
    on every core (core/threads.py)."""
    if not out.flags.c_contiguous:  # e.g. a block of heads inside a batch: via a contiguous copy
        np.copyto(out, _softmax_rows_chunked(Z, np.empty(Z.shape, Z.dtype)))
        return out
    n = Z.shape[-1]
    rows_in = np.ascontiguousarray(Z).reshape(-1, n)
    rows_out = out.reshape(-1, n)  # a view: out is contiguous

    def block(rows: slice) -> None:
        softmax_block(rows_in[rows], rows_out[rows])

    threads.each(block, threads.row_blocks(rows_in.shape[0], n, Z.itemsize), Z.size)
    return out


def _exp_inplace(Z, xp):
    """exp(Z), writing into Z when the backend has ``out=`` (NumPy, CuPy), else a fresh array."""
    if isinstance(Z, np.ndarray):
        return np.exp(Z, out=Z)
    if type(Z).__module__.startswith("cupy"):
        import cupy

        return cupy.exp(Z, out=Z)
    return xp.exp(Z)
