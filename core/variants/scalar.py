"""Attention in pure Python floats and lists: no arrays at all, the slowest honest baseline."""

import math


def attention_scalar(
    X, W_Q, W_K, W_V, W_O, n_heads: int, causal: bool = False
) -> list[list[float]]:
    """output [n][d_model] from nested lists, every multiply-add written out."""
    n, d_model = len(X), len(X[0])
    d_k, d_v = len(W_Q[0]) // n_heads, len(W_V[0]) // n_heads

    def project(W, col):  # column `col` of X W, as a list over tokens
        return [sum(X[i][r] * W[r][col] for r in range(d_model)) for i in range(n)]

    concat = [[] for _ in range(n)]
    for h in range(n_heads):
        q = list(zip(*(project(W_Q, h * d_k + c) for c in range(d_k))))  # n tuples of d_k
        k = list(zip(*(project(W_K, h * d_k + c) for c in range(d_k))))
        v = list(zip(*(project(W_V, h * d_v + c) for c in range(d_v))))
        for i in range(n):
            keys = range(i + 1) if causal else range(n)
            s = [sum(q[i][c] * k[j][c] for c in range(d_k)) / math.sqrt(d_k) for j in keys]
            top = max(s)
            e = [math.exp(x - top) for x in s]
            total = sum(e)
            concat[i].extend(sum(e[j] / total * v[j][c] for j in keys) for c in range(d_v))
    return [
        [sum(row[r] * W_O[r][c] for r in range(len(row))) for c in range(d_model)] for row in concat
    ]
