"""The block step against independent computations: torch's LayerNorm and a row-by-row loop."""

import numpy as np

from core.block import EPS, block, init_feed_forward, layer_norm
from tests.support import reference_package


def _layer_norm_by_hand(row):
    n = len(row)
    mean = sum(row) / n
    var = sum((x - mean) ** 2 for x in row) / n
    return [(x - mean) / (var + EPS) ** 0.5 for x in row]


def test_layer_norm_of_a_hand_worked_row():
    # [1, 2, 3, 6]: mean 3, variance (4 + 1 + 0 + 9) / 4 = 3.5
    got = layer_norm(np.array([[1.0, 2.0, 3.0, 6.0]]))[0]
    want = np.array([-2, -1, 0, 3]) / np.sqrt(3.5 + EPS)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_block_equals_a_row_by_row_loop():
    rng = np.random.default_rng(3)
    n, d = 5, 8
    X, attn = rng.normal(size=(n, d)), rng.normal(size=(n, d))
    ff = init_feed_forward(d, seed=7)
    out = block(X, attn, ff)
    for i in range(n):  # each row alone: the network is position-wise
        h = [X[i, c] + attn[i, c] for c in range(d)]
        nrm = _layer_norm_by_hand(h)
        hidden = [
            max(0.0, sum(nrm[c] * ff.W_1[c, u] for c in range(d)) + ff.b_1[u])
            for u in range(ff.W_1.shape[1])
        ]
        width = len(hidden)
        f = [sum(hidden[u] * ff.W_2[u, c] for u in range(width)) + ff.b_2[c] for c in range(d)]
        y = _layer_norm_by_hand([nrm[c] + f[c] for c in range(d)])
        np.testing.assert_allclose(out.N[i], nrm, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(out.F[i], f, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(out.Y[i], y, rtol=1e-10, atol=1e-12)


def test_rows_of_each_layer_norm_have_mean_0_and_variance_1():
    rng = np.random.default_rng(0)
    out = block(rng.normal(size=(6, 16)), rng.normal(size=(6, 16)), init_feed_forward(16, 0))
    for M in (out.N, out.Y):
        np.testing.assert_allclose(M.mean(axis=1), 0, atol=1e-12)
        np.testing.assert_allclose(M.var(axis=1), 1, rtol=1e-4)


def test_feed_forward_shapes_and_determinism():
    a, b = init_feed_forward(8, 1), init_feed_forward(8, 1)
    assert a.W_1.shape == (8, 32) and a.W_2.shape == (32, 8)
    np.testing.assert_array_equal(a.W_1, b.W_1)
    assert not np.array_equal(a.W_1, init_feed_forward(8, 2).W_1)


def test_matches_torch_post_norm_block():
    torch = reference_package("torch")
    rng = np.random.default_rng(5)
    X, attn = rng.normal(size=(4, 8)), rng.normal(size=(4, 8))
    ff = init_feed_forward(8, 2)
    ln = torch.nn.LayerNorm(8, eps=EPS, elementwise_affine=False, dtype=torch.float64)
    lin1 = torch.nn.Linear(8, 32, dtype=torch.float64)
    lin2 = torch.nn.Linear(32, 8, dtype=torch.float64)
    with torch.no_grad():
        lin1.weight.copy_(torch.from_numpy(ff.W_1.T))
        lin1.bias.copy_(torch.from_numpy(ff.b_1))
        lin2.weight.copy_(torch.from_numpy(ff.W_2.T))
        lin2.bias.copy_(torch.from_numpy(ff.b_2))
        n1 = ln(torch.from_numpy(X + attn))
        y = ln(n1 + lin2(torch.relu(lin1(n1))))
    np.testing.assert_allclose(block(X, attn, ff).Y, y.numpy(), rtol=1e-10, atol=1e-12)
