"""The numbers behind the scaling page's notes: the softmax gradient's hump, the kept order."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

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
