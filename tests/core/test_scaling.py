"""core/lessons/scaling.py: dot-product variance grows like d_k, the core's scaled scores have
variance close to 1, and scaling keeps the softmax from saturating; the notes the page prints."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core
from core.lessons import scaling
from core.softmax import softmax_rows


def _loop_jacobian_norm(a):
    n = len(a)
    total = 0.0
    for i in range(n):
        for j in range(n):
            entry = (a[i] if i == j else 0.0) - a[i] * a[j]
            total += entry * entry
    return math.sqrt(total)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 8), seed=st.integers(0, 10_000))
def test_jacobian_size_matches_a_loop(n, seed):
    a = softmax_rows(np.random.default_rng(seed).normal(size=n) * 3)
    assert math.isclose(
        scaling.jacobian_size(a), _loop_jacobian_norm(a), rel_tol=1e-12, abs_tol=1e-15
    )


def test_the_gradient_is_small_at_both_ends_and_larger_in_between():
    n = 16
    even = scaling.jacobian_size(np.full(n, 1 / n))
    two = scaling.jacobian_size(np.array([0.5, 0.5] + [0.0] * (n - 2)))
    one = scaling.jacobian_size(np.eye(n)[0])
    assert math.isclose(even, math.sqrt(n - 1) / n)  # 0.242 for 16 keys
    assert two == 0.5 and one == 0.0
    # random rows: spread 1 (scaled) sits below the peak, spread 2 near it, spread 4 past it
    at = {s: scaling.gradient_at_spread(s, n) for s in (1, 2, 4, 16)}
    assert at[1] < at[2] > at[4] > at[16]


def test_the_sharpness_curves_cross_where_the_page_says():
    d_ks = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
    unscaled = [scaling.softmax_sharpness(d, 16, False)[2] for d in d_ks]
    scaled = [scaling.softmax_sharpness(d, 16, True)[2] for d in d_ks]
    larger = scaling.unscaled_gradient_larger(d_ks, unscaled, scaled)
    assert larger == [d for d, u, s in zip(d_ks, unscaled, scaled) if u > s] == [2, 4, 8]
    assert max(scaled) - min(scaled) < 0.1 * np.mean(scaled)  # flat: independent of d_k
    assert all(b < a for a, b in zip(unscaled[3:], unscaled[4:]))  # past d_k = 8 it only falls


@settings(max_examples=30, deadline=None)
@given(d_k=st.sampled_from([1, 2, 4, 64, 512]), seed=st.integers(0, 10_000))
def test_dividing_by_root_d_k_keeps_the_order(d_k, seed):
    raw = scaling.score_row(d_k, 6, seed)
    scaled = raw / math.sqrt(d_k)
    assert list(np.argsort(raw, kind="stable")) == list(np.argsort(scaled, kind="stable"))
    w_raw, w_scaled = softmax_rows(raw), softmax_rows(scaled)
    assert np.argmax(w_raw) == np.argmax(w_scaled) == np.argmax(raw)
    np.testing.assert_allclose([w_raw.sum(), w_scaled.sum()], 1.0)
    np.testing.assert_allclose(softmax_rows(scaled + 5.0), w_scaled, atol=1e-12)


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
