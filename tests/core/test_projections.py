"""core.lessons.projections against direct loops: symmetry, the diagonal's place in each
row, lookups."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core
from core.lessons import projections


def _loop_scores(A, B):
    n = len(A)
    return np.array([[sum(A[i, c] * B[j, c] for c in range(A.shape[1])) for j in range(n)]
                     for i in range(n)])  # fmt: skip


def _loop_matmul(X, W):
    """X W one product at a time: row i, column c is Σ_r x_ir w_rc."""
    return np.array([[sum(X[i, r] * W[r, c] for r in range(W.shape[0])) for c in range(W.shape[1])]
                     for i in range(len(X))])  # fmt: skip


def _loop_softmax(row):
    e = [math.exp(v - max(row)) for v in row]
    return [x / sum(e) for x in e]


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 7), d=st.integers(1, 6), d_k=st.integers(1, 4), seed=st.integers(0, 10_000))
def test_score_pair_adds_x_xt_and_both_softmaxes_to_the_heads_scores(n, d, d_k, seed):
    """score_pair's own work, against loops from X and W alone: S_X = X Xᵀ one product at a
    time, A_X = softmax(X Xᵀ / √d_model) and A_QK = softmax(Q Kᵀ / √d_k) by math.exp, and the
    head's S passed through as S_QK (the page takes S from the trace; the app test holds the
    page's S_QK against the oracle)."""
    rng = np.random.default_rng(seed)
    X, W_Q, W_K = rng.normal(size=(n, d)), rng.normal(size=(d, d_k)), rng.normal(size=(d, d_k))
    Q, K = _loop_matmul(X, W_Q), _loop_matmul(X, W_K)
    S = _loop_scores(Q, K)
    pair = projections.score_pair(X, S, S / math.sqrt(d_k))
    S_X = _loop_scores(X, X)
    np.testing.assert_allclose(pair.S_X, S_X, atol=1e-12)
    np.testing.assert_array_equal(pair.S_QK, S)
    for i in range(n):
        np.testing.assert_allclose(pair.A_X[i], _loop_softmax(S_X[i] / math.sqrt(d)), atol=1e-12)
        np.testing.assert_allclose(pair.A_QK[i], _loop_softmax(S[i] / math.sqrt(d_k)), atol=1e-12)
    assert projections.asymmetry(pair.S_X).symmetric  # X Xᵀ always is


def test_asymmetry_finds_the_most_different_pair():
    S = np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 5.0], [0.5, -1.0, 3.0]])
    found = projections.asymmetry(S)
    assert (found.i, found.j, found.gap, found.symmetric) == (1, 2, 6.0, False)
    found = projections.asymmetry(S.T)  # the larger cell below the diagonal: the same pair
    assert (found.i, found.j, found.gap, found.symmetric) == (1, 2, 6.0, False)
    assert projections.asymmetry(S + S.T).symmetric


def test_projections_break_the_symmetry_for_the_default_sentence():
    """The default sentence's head-0 scores, built here by loops from its X and the seeded
    weight tables, are not symmetric, and asymmetry() names the pair a loop over all pairs finds
    with its gap."""
    tokens = core.tokenize("the movie was really good")
    X = core.to_numpy(core.embed(tokens, 8) + core.positional_encoding(5, 8))
    W = core.init_weights(core.AttentionConfig())  # head 0: the first d_k = 4 columns
    W_Q, W_K = (core.to_numpy(M)[:, :4] for M in (W.W_Q, W.W_K))
    S = _loop_scores(_loop_matmul(X, W_Q), _loop_matmul(X, W_K))
    gap, i, j = max((abs(S[i, j] - S[j, i]), i, j) for i in range(5) for j in range(i + 1, 5))
    found = projections.asymmetry(S)
    assert not found.symmetric
    assert (found.i, found.j) == (i, j)
    assert found.gap == pytest.approx(gap, abs=1e-12)


@settings(max_examples=50, deadline=None)
@given(n=st.integers(1, 7), seed=st.integers(0, 10_000))
def test_row_winners_match_a_loop(n, seed):
    S = np.random.default_rng(seed).normal(size=(n, n))
    for winner in projections.row_winners(S):
        i = winner.i
        others = [S[i, j] for j in range(n) if j != i]
        assert winner.diagonal_wins == all(S[i, i] >= v for v in others)
        assert S[i, winner.j] == max(S[i])


def test_equal_norms_put_the_largest_score_on_the_diagonal_and_a_long_vector_breaks_it():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(6, 4))
    X /= np.linalg.norm(X, axis=1, keepdims=True)  # cos θ ≤ 1: x_i·x_j ≤ |x_i|² when norms match
    assert all(w.diagonal_wins for w in projections.row_winners(X @ X.T))
    X[3] = 10 * X[0] + 0.1 * X[1]  # nearly parallel to x_0 and ten times longer
    winners = projections.row_winners(X @ X.T)
    assert not winners[0].diagonal_wins and winners[0].j == 3


def test_a_repeated_vector_ties_with_the_diagonal_and_counts_as_largest():
    X = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    assert all(w.diagonal_wins for w in projections.row_winners(X @ X.T))


def test_lookup_hard_and_soft():
    q = np.array([1.0, 0.0])
    K = np.array([[2.0, 0.0], [0.0, 2.0], [-2.0, 0.0]])
    V = np.array([[1.0, 0.0], [0.0, 1.0], [5.0, 5.0]])
    found = projections.lookup(q, K, V)
    np.testing.assert_allclose(found.scores, [2 / math.sqrt(2), 0.0, -2 / math.sqrt(2)])
    expected = _loop_softmax(list(found.scores))
    np.testing.assert_allclose(found.weights, expected)
    assert found.best == 0
    np.testing.assert_array_equal(found.hard, V[0])
    np.testing.assert_allclose(found.soft, sum(w * v for w, v in zip(expected, V)))
    cold = projections.lookup(q, K, V, temperature=0.01)  # sharper and sharper: the hard lookup
    np.testing.assert_allclose(cold.soft, V[0], atol=1e-12)
    hot = projections.lookup(q, K, V, temperature=1e6)  # flatter and flatter: the mean
    np.testing.assert_allclose(hot.soft, V.mean(axis=0), atol=1e-5)
    with pytest.raises(ValueError):
        projections.lookup(q, K, V, temperature=0)


def test_self_weights_are_the_diagonal():
    A = np.arange(9.0).reshape(3, 3)
    np.testing.assert_array_equal(projections.self_weights(A), [0.0, 4.0, 8.0])
