"""Tile-by-tile attention with the online softmax equals the full matrix computation."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import core
from core.variants.flash import flash_attention, full_attention
from measure import timing


@settings(max_examples=80, deadline=None)
@given(
    n=st.integers(1, 17),
    d_k=st.integers(1, 5),
    d_v=st.integers(1, 4),
    tile_q=st.integers(1, 8),
    tile_k=st.integers(1, 8),
    mask=st.sampled_from(["none", "causal", "random"]),
    seed=st.integers(0, 10_000),
)
def test_tiles_reproduce_the_full_result(n, d_k, d_v, tile_q, tile_k, mask, seed):
    rng = np.random.default_rng(seed)
    Q, K, V = (
        rng.normal(size=(n, d_k)) * 3,
        rng.normal(size=(n, d_k)) * 3,
        rng.normal(size=(n, d_v)),
    )
    allowed = {
        "none": None,
        "causal": np.tril(np.ones((n, n), bool)),
        "random": rng.random((n, n)) < 0.5,
    }[mask]
    tiled = flash_attention(Q, K, V, tile_q, tile_k, allowed)
    np.testing.assert_allclose(tiled, full_attention(Q, K, V, allowed), rtol=0, atol=1e-12)
    # and both agree with the core's multi-head attention for one head with W_O = I
    X = np.eye(n, max(n, 1))
    W = core.Weights(
        W_Q=np.vstack([Q, np.zeros((X.shape[1] - n, d_k))]),
        W_K=np.vstack([K, np.zeros((X.shape[1] - n, d_k))]),
        W_V=np.vstack([V, np.zeros((X.shape[1] - n, d_v))]),
        W_O=np.eye(d_v),
    )
    trace = core.attention(X, W, 1, allowed)
    np.testing.assert_allclose(tiled, trace.output, rtol=0, atol=1e-12)


def test_recorded_steps_show_the_rescaling():
    rng = np.random.default_rng(0)
    Q, K, V = rng.normal(size=(4, 2)), rng.normal(size=(4, 2)), rng.normal(size=(4, 3))
    K[3] = Q[0] / (Q[0] @ Q[0]) * 50  # the last key tile holds a much larger score for query 0
    O, steps = flash_attention(Q, K, V, tile_q=4, tile_k=2, record=True)
    assert [s.cols for s in steps] == [(0, 2), (2, 4)]
    first, second = steps
    assert second.m[0] > first.m[0]
    assert second.rescale[0] < 1e-6  # what came before shrinks by e^(m_old - m_new)
    np.testing.assert_allclose(second.partial, O)  # after the last tile: the answer
    np.testing.assert_allclose(
        first.l * second.rescale + np.exp(Q @ K[2:].T / np.sqrt(2) - second.m[:, None]).sum(axis=1),
        second.l,
    )


def test_tiles_use_less_memory_than_the_full_matrix():
    rng = np.random.default_rng(1)
    n = 1024
    Q, K, V = rng.normal(size=(n, 16)), rng.normal(size=(n, 16)), rng.normal(size=(n, 16))
    tiled = timing.peak_bytes(lambda: flash_attention(Q, K, V, 64, 64))
    whole = timing.peak_bytes(lambda: full_attention(Q, K, V))
    assert whole > n * n * 8  # at least one n x n float64
    assert tiled < whole / 10
