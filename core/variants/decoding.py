"""Autoregressive inference: one new token at a time, with a cache of the keys and values so far."""

import math

from array_api_compat import array_namespace

from core.checks import validate
from core.softmax import softmax_rows
from core.weights import Weights


def decode_incremental(X, weights: Weights, n_heads: int):
    """output [n, d_model] computed token by token: step t sees only tokens 0..t (a K/V cache).

    Training computes every row at once with a causal mask; this is how generation runs, and the
    rows come out the same.
    """
    weights = weights.like(X)  # computed where X lives
    xp = array_namespace(X, weights.W_Q)
    d_k, d_v = validate(X, weights, n_heads)
    n = X.shape[0]
    K_cache, V_cache, rows = [], [], []
    for step in range(n):
        x_t = X[step : step + 1, :]  # [1, d_model]: only the newest token is projected
        q = xp.reshape(x_t @ weights.W_Q, (n_heads, 1, d_k))  # [h, 1, d_k]
        K_cache.append(xp.reshape(x_t @ weights.W_K, (n_heads, 1, d_k)))  # cache grows by one
        V_cache.append(xp.reshape(x_t @ weights.W_V, (n_heads, 1, d_v)))
        K = xp.concat(K_cache, axis=1)  # [h, t+1, d_k]
        V = xp.concat(V_cache, axis=1)  # [h, t+1, d_v]
        A = softmax_rows(q @ xp.matrix_transpose(K) / math.sqrt(d_k))  # [h, 1, t+1]
        O = A @ V  # [h, 1, d_v]
        rows.append(xp.reshape(O, (1, n_heads * d_v)) @ weights.W_O)  # [1, d_model]
    return xp.concat(rows, axis=0)  # [n, d_model]
