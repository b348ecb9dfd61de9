"""Why Q and K get their own projections: X Xᵀ against (X W_Q)(X W_K)ᵀ, and attention as a lookup.

Pure NumPy: the checks a page states about the learner's numbers (symmetric or not, does each
row's largest score sit on the diagonal) and the hard and soft lookup of one query.
"""

from dataclasses import dataclass

import numpy as np

from core.softmax import softmax_rows


@dataclass(frozen=True)
class ScorePair:
    """Scores and weights with and without the projections, for one sentence and one head."""

    S_X: np.ndarray  # [n, n] X Xᵀ
    S_QK: np.ndarray  # [n, n] (X W_Q)(X W_K)ᵀ
    A_X: np.ndarray  # [n, n] softmax(X Xᵀ / √d_model) by rows
    A_QK: np.ndarray  # [n, n] softmax(Q Kᵀ / √d_k) by rows


def score_pair(X: np.ndarray, S: np.ndarray, S_scaled: np.ndarray) -> ScorePair:
    """X [n, d_model]; one head's S = Q Kᵀ and S / √d_k [n, n], as the attention trace holds them
    (unmasked: the comparison is about the scores). Only X Xᵀ and the two softmaxes are new."""
    X = np.asarray(X, dtype=np.float64)
    S_X = X @ X.T  # [n, n]
    A_X = softmax_rows(S_X / np.sqrt(X.shape[1]))
    return ScorePair(S_X, np.asarray(S, np.float64), A_X, softmax_rows(np.asarray(S_scaled)))


def _tolerance(S: np.ndarray) -> float:
    return 1e-9 * max(1.0, float(np.max(np.abs(S))) if S.size else 1.0)


@dataclass(frozen=True)
class Asymmetry:
    """The pair (i, j) where s_ij and s_ji differ most, and by how much."""

    i: int
    j: int
    gap: float  # |s_ij − s_ji|
    symmetric: bool  # the gap is rounding only: s_ij = s_ji for every pair


def asymmetry(S: np.ndarray) -> Asymmetry:
    S = np.asarray(S, dtype=np.float64)
    D = np.abs(S - S.T)  # [n, n]
    i, j = np.unravel_index(int(np.argmax(D)), D.shape)
    i, j = (int(i), int(j)) if i <= j else (int(j), int(i))
    return Asymmetry(i, j, float(D[i, j]), bool(D[i, j] <= _tolerance(S)))


@dataclass(frozen=True)
class RowWinner:
    """Row i's largest score: which key holds it, and whether the diagonal holds it (ties count)."""

    i: int
    j: int  # the key with the largest score (i itself when the diagonal ties for it)
    diagonal_wins: bool


def row_winners(S: np.ndarray) -> list[RowWinner]:
    """For each row, is s_ii the largest score in it? A tie with another key counts as largest."""
    S = np.asarray(S, dtype=np.float64)
    tol = _tolerance(S)
    winners = []
    for i, row in enumerate(S):
        wins = bool(row[i] >= row.max() - tol)
        winners.append(RowWinner(i, i if wins else int(np.argmax(row)), wins))
    return winners


def self_weights(A: np.ndarray) -> np.ndarray:
    """The weight each token keeps on itself: the diagonal of A."""
    return np.diagonal(np.asarray(A)).copy()


@dataclass(frozen=True)
class Lookup:
    """One query against every key: the hard lookup (one value) and the soft one (a mix)."""

    scores: np.ndarray  # [n] q · k_j / √d_k
    weights: np.ndarray  # [n] softmax(scores / temperature)
    best: int  # the key a hard lookup returns
    hard: np.ndarray  # [d_v] v_best
    soft: np.ndarray  # [d_v] Σ_j weights_j v_j


def lookup(q: np.ndarray, K: np.ndarray, V: np.ndarray, temperature: float = 1.0) -> Lookup:
    """q [d_k], K [n, d_k], V [n, d_v]. A temperature below 1 sharpens the weights towards the
    hard lookup; above 1 it flattens them towards the plain mean of the values."""
    if temperature <= 0:
        raise ValueError("temperature must be positive")
    q, K, V = (np.asarray(a, dtype=np.float64) for a in (q, K, V))
    scores = K @ q / np.sqrt(K.shape[1])  # [n]
    weights = softmax_rows(scores[None, :] / temperature)[0]  # [n]
    best = int(np.argmax(scores))
    return Lookup(scores, weights, best, V[best].copy(), weights @ V)
