"""The independent computations the tests compare against: each shares nothing with the code it
checks beyond NumPy's matmul and exp (or, for the hand check, not even NumPy)."""

import math

import numpy as np


def reference(X, W, n_heads, mask) -> dict:
    """Every intermediate from X and W_Q, W_K, W_V, W_O alone, one head at a time, with a softmax
    written out here: the oracle shares nothing with the core but NumPy's matmul and exp."""
    d_k, d_v = W.W_Q.shape[1] // n_heads, W.W_V.shape[1] // n_heads
    fields = {name: [] for name in ("Q", "K", "V", "S", "S_scaled", "S_masked", "A", "O")}
    for h in range(n_heads):
        Q = X @ W.W_Q[:, h * d_k : (h + 1) * d_k]  # [..., n, d_k]
        K = X @ W.W_K[:, h * d_k : (h + 1) * d_k]
        V = X @ W.W_V[:, h * d_v : (h + 1) * d_v]  # [..., n, d_v]
        S = Q @ np.swapaxes(K, -1, -2)  # [..., n, n]
        scaled = S / math.sqrt(d_k)
        allowed = np.ones(S.shape, bool) if mask is None else np.broadcast_to(mask, S.shape)
        masked = np.where(allowed, scaled, -np.inf)
        row_has_key = allowed.any(axis=-1, keepdims=True)
        top = np.where(row_has_key, masked.max(axis=-1, keepdims=True), 0.0)
        E = np.exp(masked - top)  # exp(-inf) = 0 for forbidden keys
        total = E.sum(axis=-1, keepdims=True)
        A = E / np.where(total > 0, total, 1)  # a row with no allowed key stays all zero
        for name, value in zip(fields, (Q, K, V, S, scaled, masked, A, A @ V), strict=True):
            fields[name].append(value)
    trace = {name: np.stack(values, axis=-3) for name, values in fields.items()}
    trace["concat"] = np.concatenate(fields["O"], axis=-1)  # heads side by side
    trace["output"] = trace["concat"] @ W.W_O
    trace["X"] = X
    return trace


def by_hand(M, causal=False):
    """Attention for three tokens the slow way: lists, loops, math.exp; no NumPy, no core."""
    X, W_Q, W_K, W_V = (M[name].tolist() for name in ("X", "W_Q", "W_K", "W_V"))

    def mat(A, B):
        return [
            [sum(A[i][r] * B[r][c] for r in range(len(B))) for c in range(len(B[0]))]
            for i in range(len(A))
        ]

    Q, K, V = mat(X, W_Q), mat(X, W_K), mat(X, W_V)
    d_k, S, A, O = len(Q[0]), [], [], []
    for i in range(3):
        keys = range(i + 1) if causal else range(3)
        s = [sum(Q[i][c] * K[j][c] for c in range(d_k)) for j in range(3)]
        top = max(s[j] for j in keys) / math.sqrt(d_k)
        e = [math.exp(s[j] / math.sqrt(d_k) - top) if j in keys else 0.0 for j in range(3)]
        a = [x / sum(e) for x in e]
        S.append(s)
        A.append(a)
        O.append([sum(a[j] * V[j][c] for j in range(3)) for c in range(len(V[0]))])
    return np.array(S), np.array(A), np.array(O)


def simulated_cnn_layers(n: int, k: int) -> int:
    """Grow the set of positions that token 0's information has reached, one layer at a time:
    position j's output in a layer reads positions j − k + 1 … j of the layer below."""
    reached, layers = {0}, 0
    while n - 1 not in reached:
        reached = {j for j in range(n) if any(j - k + 1 <= i <= j for i in reached)}
        layers += 1
    return layers


def induction_by_hand(A, ids):
    """Each head's induction score [layers, heads], by loops: its weight on the keys whose
    previous piece is the query's, averaged over the queries that have such a key."""
    n = len(ids)
    queries = [i for i in range(n) if any(ids[j - 1] == ids[i] for j in range(1, i + 1))]
    scores = np.zeros((len(A), A[0].shape[0]))
    for layer, maps in enumerate(A):
        for i in queries:
            keys = [j for j in range(1, i + 1) if ids[j - 1] == ids[i]]
            scores[layer] += maps[:, i, keys].sum(axis=-1) / len(queries)
    return scores
