"""The hand check's chosen n = 3 example, and attention for it one query token at a time.

The numbers were chosen, not drawn (tests/ui/test_hand_check_text.py checks each property):
d_k = 4, so dividing by √d_k is halving; the scores S = Q Kᵀ are small whole numbers; no row of A
is uniform and none puts more than 0.9 on one key; every exponent needed, a scaled score minus its
row's largest, is 0, −0.5 or −1, so three values of e read from a table do all the softmax work.
"""

import math
from dataclasses import dataclass

import numpy as np

D_K = 4
D_V_CHOICES = (2, 3, 4)  # W_V's first d_v columns
X = np.array([[1, 1, 0], [0, 1, 1], [1, 0, 1]], dtype=float)  # [n=3, d_model=3]
W_Q = np.array([[0, 1, 1, 0], [0, 0, -1, 1], [1, -1, 1, 0]], dtype=float)  # [3, d_k=4]
W_K = np.array([[0, 0, 0, 1], [0, -1, 1, 0], [1, 1, 0, 0]], dtype=float)  # [3, d_k=4]
W_V = np.array([[1, 0, 2, 0], [0, 1, 0, -1], [1, 1, 0, 1]], dtype=float)  # [3, 4]


def example(d_v: int = D_K) -> dict[str, np.ndarray]:
    """Fresh copies of X, W_Q, W_K and W_V, this last cut to d_v columns."""
    return {"X": X.copy(), "W_Q": W_Q.copy(), "W_K": W_K.copy(), "W_V": W_V[:, :d_v].copy()}


@dataclass(frozen=True)
class QueryStep:
    """Query i's attention worked out: its scores with each key, the softmax, the weighted sum.

    Lists run over all keys j; a key the mask forbids has allowed False, exp 0 and weight 0.
    """

    i: int
    scores: list  # s_ij = q_i · k_j
    scaled: list  # s_ij / √d_k
    allowed: list  # may query i look at key j
    top: float  # the largest allowed scaled score m_i
    exps: list  # e^(s_ij/√d_k − m_i), 0 where forbidden
    total: float  # the sum of exps
    weights: list  # a_ij = exps / total
    output: list  # o_i = Σ_j a_ij v_j


def per_token(Q, K, V, causal: bool) -> list[QueryStep]:
    """Attention one query token at a time in plain Python (no matrix products, math.exp)."""
    Q, K, V = (np.asarray(M, dtype=float).tolist() for M in (Q, K, V))
    n, d_k = len(Q), len(Q[0])
    steps = []
    for i in range(n):
        scores = [sum(q * k for q, k in zip(Q[i], K[j], strict=True)) for j in range(n)]
        scaled = [s / math.sqrt(d_k) for s in scores]
        allowed = [j <= i or not causal for j in range(n)]
        top = max(s for s, ok in zip(scaled, allowed, strict=True) if ok)
        exps = [math.exp(s - top) if ok else 0.0 for s, ok in zip(scaled, allowed, strict=True)]
        total = sum(exps)
        weights = [e / total for e in exps]
        output = [sum(weights[j] * V[j][c] for j in range(n)) for c in range(len(V[0]))]
        steps.append(QueryStep(i, scores, scaled, allowed, top, exps, total, weights, output))
    return steps


def exponents(steps: list[QueryStep]) -> list[float]:
    """Every exponent the softmax needs (scaled score minus its row's largest), largest first."""
    needed = {
        round(s - step.top, 9)
        for step in steps
        for s, ok in zip(step.scaled, step.allowed, strict=True)
        if ok
    }
    return sorted(needed, reverse=True)
