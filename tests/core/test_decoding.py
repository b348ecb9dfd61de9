"""core/variants/decoding.py: incremental decoding with a K/V cache equals the causal full pass,
and no row sees the future."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import core


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
