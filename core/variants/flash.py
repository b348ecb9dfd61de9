"""FlashAttention's idea in NumPy: attention tile by tile with an online softmax.

Keys are visited one tile at a time; each query row keeps a running maximum m, a running sum l
of exponentials and an unnormalised output. When a new tile raises the maximum, what came
before is rescaled by e^(m_old - m_new). The n x n matrix is never stored whole.
"""

import math
from dataclasses import dataclass

import numpy as np

from core.softmax import softmax_rows


@dataclass(frozen=True)
class TileStep:
    """The state after one (query tile, key tile) step, for showing the algorithm."""

    rows: tuple  # (start, stop) of the query tile
    cols: tuple  # (start, stop) of the key tile
    m: np.ndarray  # [tile_q] running maximum after this tile
    l: np.ndarray  # [tile_q] running sum of e^(s - m) after this tile
    rescale: np.ndarray  # [tile_q] factor e^(m_old - m_new) applied to what came before
    partial: np.ndarray  # [tile_q, d_v] output so far: accumulator / l
    m_old: np.ndarray  # [tile_q] running maximum before this tile (-inf before the first)


def flash_attention(Q, K, V, tile_q: int, tile_k: int, allowed=None, record: bool = False):
    """O [n, d_v] = softmax(Q Kᵀ / sqrt(d_k)) V computed tile by tile; with ``record``, also
    every TileStep. ``allowed`` [n, n] (True = may attend) works like the masked softmax:
    forbidden weights are 0 and a row with no allowed key gives a zero output."""
    n, d_k = Q.shape
    n_keys, d_v = V.shape
    O = np.zeros((n, d_v))  # [n, d_v]
    steps = []
    for i0 in range(0, n, tile_q):
        i1 = min(n, i0 + tile_q)
        m = np.full(i1 - i0, -np.inf)  # [tile_q] running max
        l = np.zeros(i1 - i0)  # [tile_q] running sum
        acc = np.zeros((i1 - i0, d_v))  # [tile_q, d_v] unnormalised output
        for j0 in range(0, n_keys, tile_k):
            j1 = min(n_keys, j0 + tile_k)
            S = Q[i0:i1] @ K[j0:j1].T / math.sqrt(d_k)  # [tile_q, tile_k]: only this tile
            if allowed is not None:
                S = np.where(allowed[i0:i1, j0:j1], S, -np.inf)
            m_new = np.maximum(m, S.max(axis=1))  # [tile_q]
            safe = np.where(np.isfinite(m_new), m_new, 0.0)  # nothing allowed yet: stay at 0
            rescale = np.exp(m - safe)  # [tile_q]; e^(-inf) = 0 when m was -inf
            P = np.exp(S - safe[:, None])  # [tile_q, tile_k]; forbidden -> exactly 0
            l = l * rescale + P.sum(axis=1)
            acc = acc * rescale[:, None] + P @ V[j0:j1]  # [tile_q, d_v]
            m, m_old = m_new, m
            if record:
                partial = acc / np.where(l > 0, l, 1.0)[:, None]
                steps.append(
                    TileStep((i0, i1), (j0, j1), m.copy(), l.copy(), rescale, partial, m_old)
                )
        O[i0:i1] = acc / np.where(l > 0, l, 1.0)[:, None]
    return (O, steps) if record else O


def rescales(step: TileStep) -> np.ndarray:
    """The rows of a step whose earlier work shrinks: a factor strictly between 0 and 1 (the
    running maximum rose; before the first allowed key there was nothing to shrink)."""
    return (step.rescale > 0) & (step.rescale < 1)


def showing_tile(Q, K, V, allowed=None, largest: int = 8) -> int:
    """A tile size (2, 3, 1, 4, … ``largest`` tried in this order, the first of the earliest
    kept) whose first query tile shows a rescaling as early as possible: the page opens on one."""
    n = Q.shape[0]
    best, first_at = min(2, n), math.inf
    for size in dict.fromkeys([2, 3, 1, *range(4, largest + 1)]):
        if size > n:
            continue
        rows = None if allowed is None else allowed[:size]  # the first query tile is enough
        _, steps = flash_attention(Q[:size], K, V, size, size, rows, record=True)
        at = next((i for i, step in enumerate(steps) if rescales(step).any()), math.inf)
        if at < first_at:
            best, first_at = size, at
    return best


def full_attention(Q, K, V, allowed=None):
    """The whole n x n at once, for comparison: softmax(mask(Q Kᵀ / sqrt(d_k))) V."""
    S = Q @ K.T / math.sqrt(Q.shape[1])  # [n, n]
    if allowed is not None:
        S = np.where(allowed, S, -np.inf)
    return softmax_rows(S) @ V  # [n, d_v]
