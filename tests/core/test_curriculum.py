"""The maths behind the curriculum pages: incremental decoding, the scaling argument, mistakes."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core
from core.lessons import mistakes, scaling
from core.softmax import softmax_along


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 9),
    heads=st.sampled_from([1, 2, 4]),
    width=st.integers(1, 3),
    seed=st.integers(0, 10_000),
)
def test_incremental_decoding_equals_the_causal_full_pass(n, heads, width, seed):
    d_model = heads * width * 2
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d_model))
    W = core.init_weights(core.AttentionConfig(d_model=d_model, n_heads=heads, seed=seed))
    full = core.attention(X, W, heads, mask=core.causal_mask(n)).output
    np.testing.assert_allclose(core.decode_incremental(X, W, heads), full, rtol=0, atol=1e-12)


def test_incremental_rows_never_see_the_future():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 8))
    W = core.init_weights(core.AttentionConfig(d_model=8, n_heads=2))
    changed = X.copy()
    changed[4:] += 10.0  # change the last two tokens
    a, b = core.decode_incremental(X, W, 2), core.decode_incremental(changed, W, 2)
    np.testing.assert_array_equal(a[:4], b[:4])
    assert np.abs(a[4:] - b[4:]).max() > 1e-3


@pytest.mark.parametrize("d_k", [1, 4, 64, 512])
def test_dot_product_variance_grows_like_d_k(d_k):
    samples = 40_000
    s = scaling.dot_products(d_k, samples, seed=d_k)
    # Var(q.k) = d_k for N(0, 1) entries; the sample variance has a standard error of about
    # d_k * sqrt(2 / samples) (times a small kurtosis factor): allow five of them.
    tolerance = 5 * d_k * math.sqrt(3 / samples)
    assert abs(s.var() - d_k) < tolerance


@pytest.mark.parametrize("d_k", [1, 4, 64, 512])
def test_the_cores_scaled_scores_have_variance_close_to_1(d_k):
    # the core's own S/√d_k, not the samples above divided again: n tokens with N(0, 1) entries
    # and identity projections, so q_i = k_i = x_i and S_ij (i != j) is a dot product of
    # independent vectors. The n² pairs share rows, so the spread of their variance is about
    # 2/sqrt(n) (0.045 here); 0.25 still tells 1 from 1/d_k (0.25 at d_k = 4) or from d_k
    n = 2000
    X = np.random.default_rng(d_k).normal(size=(n, d_k)).astype(np.float32)
    eye = np.eye(d_k, dtype=np.float32)
    trace = core.attention(X, core.Weights(eye, eye, eye, eye), 1, keep={"S_scaled"})
    off_diagonal = trace.S_scaled[0][~np.eye(n, dtype=bool)]
    assert abs(off_diagonal.var(dtype=np.float64) - 1) < 0.25


def test_scaling_keeps_the_softmax_from_saturating():
    top_raw, entropy_raw, grad_raw = scaling.softmax_sharpness(512, 16, scaled=False)
    top, entropy, grad = scaling.softmax_sharpness(512, 16, scaled=True)
    assert top_raw > 0.9 and top < 0.6  # unscaled: nearly one-hot
    assert entropy_raw < 0.3 < entropy < math.log(16)
    assert grad_raw < grad / 3  # saturated softmax: the gradient all but vanishes
    assert scaling.softmax_sharpness(1, 16, scaled=False) == scaling.softmax_sharpness(
        1, 16, scaled=True
    )  # sqrt(1) = 1: nothing changes


def _scaled_example(n=5, d_k=3, seed=1):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d_k)), rng.normal(size=(n, d_k))


def test_softmax_along_the_wrong_axis_normalises_columns_not_rows():
    Q, K = _scaled_example()
    wrong = mistakes.softmax_wrong_axis(Q @ K.T / math.sqrt(3))
    np.testing.assert_allclose(wrong.sum(axis=0), 1.0)
    assert np.abs(wrong.sum(axis=1) - 1).max() > 0.05


def test_a_missing_transpose_is_a_shape_error():
    Q, K = _scaled_example(n=5, d_k=3)
    with pytest.raises(core.InputError) as error:
        mistakes.scores_without_transpose(Q, K)
    assert error.value.params["inner_left"] == 3 and error.value.params["inner_right"] == 5
    Q_sq, K_sq = _scaled_example(n=3, d_k=3)  # square: it runs, and gives the wrong numbers
    assert np.abs(mistakes.scores_without_transpose(Q_sq, K_sq) - Q_sq @ K_sq.T).max() > 1e-3


def test_masking_after_softmax_breaks_the_row_sums_and_differs_from_the_loop():
    Q, K = _scaled_example()
    scaled = Q @ K.T / math.sqrt(3)
    allowed = np.tril(np.ones((5, 5), dtype=bool))
    wrong = mistakes.mask_after_softmax(scaled, allowed)
    assert np.all(wrong[~allowed] == 0)
    assert np.all(wrong.sum(axis=1)[:-1] < 1 - 1e-6)  # every row but the last lost weight
    right = core.softmax_rows(np.where(allowed, scaled, -np.inf))
    np.testing.assert_allclose(right.sum(axis=1), 1.0)
    assert np.abs(wrong - right).max() > 0.05


def test_dividing_by_sqrt_d_v_changes_the_weights_when_d_k_differs():
    Q, K = _scaled_example(d_k=8)
    S = Q @ K.T
    right = softmax_along(S / math.sqrt(8), axis=-1)
    assert np.abs(mistakes.scale_by_d_v(S, d_v=2) - right).max() > 0.05
    np.testing.assert_allclose(mistakes.scale_by_d_v(S, d_v=8), right)


def test_the_rnn_chain_really_depends_on_the_past():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 4))
    W_h, W_x = rng.normal(size=(4, 4)) * 0.5, rng.normal(size=(4, 4))
    H = core.rnn_chain(X, W_h, W_x)
    h = np.zeros(4)
    for t in range(6):  # the recurrence written out independently
        h = np.tanh(h @ W_h + X[t] @ W_x)
        np.testing.assert_allclose(H[t], h)
    changed = X.copy()
    changed[0] += 1.0
    assert np.abs(core.rnn_chain(changed, W_h, W_x)[5] - H[5]).max() > 1e-6
