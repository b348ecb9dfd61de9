"""A view of one head at n = 4096 fits in far less memory than the full trace."""

import tracemalloc

import numpy as np

import core


def test_one_head_view_at_n_4096_stays_under_500_mb():
    n, d_model, n_heads = 4096, 512, 8
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d_model)).astype(np.float32)
    W = core.init_weights(core.AttentionConfig(d_model=d_model, n_heads=n_heads, dtype="float32"))
    tracemalloc.start()
    try:
        trace = core.attention(
            X, W, n_heads, mask=core.causal_mask(n), keep={"A", "output"}, heads=[3]
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert trace.A.shape == (1, n, n) and trace.output.shape == (n, d_model)
    assert peak < 500 * 2**20, f"peak {peak / 2**20:.0f} MB"
    head = n * n * 4  # one head's n x n matrix in float32
    assert head <= peak  # the kept A itself was counted: the measurement is real
    # A and at most four n x n temporaries, where the full trace holds 4 x 8 heads of them
    assert peak < 5 * head, f"{peak / head:.1f} n x n matrices"
    # the kept head is the same head the full computation would give, for a few rows
    rows = [0, 1, 2047, 4095]
    W_Q, W_K = core.to_numpy(W.W_Q), core.to_numpy(W.W_K)  # made on a GPU where there is one
    Q = X @ W_Q[:, 3 * 64 : 4 * 64]
    K = X @ W_K[:, 3 * 64 : 4 * 64]
    S = (Q[rows] @ K.T) / 8.0
    S = np.where(core.to_numpy(core.causal_mask(n))[rows], S, -np.inf)
    A = np.exp(S - S.max(axis=1, keepdims=True))
    np.testing.assert_allclose(trace.A[0, rows], A / A.sum(axis=1, keepdims=True), atol=1e-5)
