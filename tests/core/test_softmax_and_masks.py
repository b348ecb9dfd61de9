"""Numerics of the masked softmax and the shapes and meaning of the masks."""

import numpy as np
import pytest

import core
from tests.support.backends import host, on


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_huge_scores_do_not_overflow(xp, dtype):
    Z = on(xp, np.array([[1e8, 0.0, -1e8], [1e8, 1e8, 1e8]], dtype=dtype))
    A = host(core.softmax_rows(Z))
    assert A.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(A[0], [1.0, 0.0, 0.0])
    np.testing.assert_allclose(A[1], [1 / 3] * 3, rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_forbidden_is_exactly_zero_and_an_empty_row_is_zero_not_nan(xp, dtype):
    Z = on(xp, np.array([[2.0, -np.inf, 1.0], [-np.inf, -np.inf, -np.inf]], dtype=dtype))
    A = host(core.softmax_rows(Z))
    assert A[0, 1] == 0.0
    np.testing.assert_allclose(
        A[0, [0, 2]], np.exp([1.0, 0.0]) / np.exp([1.0, 0.0]).sum(), rtol=1e-6
    )
    np.testing.assert_array_equal(A[1], [0.0, 0.0, 0.0])


def test_float32_attention_with_huge_inputs_stays_finite():
    X = np.full((4, 4), 1e3, dtype=np.float32)
    W = core.Weights(*(np.eye(4, dtype=np.float32) * 10 for _ in range(4)))
    trace = core.attention(X, W, 2, mask=core.causal_mask(4))
    assert np.isfinite(trace.A).all() and np.isfinite(trace.output).all()


def test_causal_mask_lets_each_token_see_itself_and_the_past():
    M = core.to_numpy(core.causal_mask(4))
    expected = [[j <= i for j in range(4)] for i in range(4)]
    np.testing.assert_array_equal(M, expected)


def test_padding_mask_hides_padded_keys_per_sentence():
    M = core.to_numpy(core.padding_mask([3, 1], 4))
    assert M.shape == (2, 4, 4) and M.dtype == bool
    np.testing.assert_array_equal(M[0], [[True, True, True, False]] * 4)
    np.testing.assert_array_equal(M[1], [[True, False, False, False]] * 4)


def test_padding_and_causal_masks_combine_on_a_batch():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(2, 4, 6))
    W = core.init_weights(core.AttentionConfig(d_model=6, n_heads=3))
    mask = core.padding_mask([4, 2], 4) & core.causal_mask(4)
    A = core.attention(X, W, 3, mask=mask).A  # [2, 3, 4, 4]
    assert A.shape == (2, 3, 4, 4)
    # sentence 1 has 2 real tokens: every query row ignores keys 2 and 3
    assert np.all(A[1, :, :, 2:] == 0.0)
    # and never looks ahead: row 0 puts everything on key 0
    np.testing.assert_array_equal(A[:, :, 0, 0], 1.0)


def test_without_positions_permuting_tokens_permutes_outputs():
    tokens = core.tokenize("the cat sat on a mat")
    config = core.AttentionConfig(d_model=8, n_heads=2, positional=False)
    W = core.init_weights(config)
    order = np.array([3, 0, 5, 1, 4, 2])
    X = core.embed(tokens, 8)
    X_perm = core.embed([tokens[i] for i in order], 8)
    out, out_perm = core.attention(X, W, 2).output, core.attention(X_perm, W, 2).output
    np.testing.assert_allclose(out_perm, out[order], atol=1e-12)

    PE = core.positional_encoding(len(tokens), 8)
    out_pe = core.attention(X + PE, W, 2).output
    out_perm_pe = core.attention(X_perm + PE, W, 2).output
    assert np.abs(out_perm_pe - out_pe[order]).max() > 1e-3  # positions make order matter


def test_large_softmaxes_block_by_block_equal_the_formula():
    """Above CHUNKED_FROM entries (and whenever ``out`` is given) rows go a cache-sized block at
    a time on several threads: the numbers must be the plain formula's, -inf rows included."""
    from core.softmax import CHUNKED_FROM, softmax_rows

    rng = np.random.default_rng(3)
    Z = rng.normal(scale=30, size=(3, 700, 600))  # 1.26M entries, above CHUNKED_FROM
    assert Z.size >= CHUNKED_FROM
    Z[0, :, 5:] = -np.inf  # only the first five keys allowed
    Z[1, 7] = -np.inf  # a row with no allowed key
    expected = np.exp(Z - Z.max(axis=-1, keepdims=True).clip(min=-1e300))  # a -inf row max: finite
    expected[1, 7] = 0.0
    sums = expected.sum(axis=-1, keepdims=True)
    expected = expected / np.where(sums > 0, sums, 1.0)

    np.testing.assert_allclose(softmax_rows(Z), expected, rtol=1e-12, atol=1e-300)
    strided = np.ascontiguousarray(Z.transpose(0, 2, 1)).transpose(0, 2, 1)  # same values
    out = np.empty((3, 700, 1200))[:, :, ::2]  # not contiguous: written through a copy
    assert softmax_rows(strided, out=out) is out
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-300)
    assert np.all(out[0, :, 5:] == 0) and np.all(out[1, 7] == 0)
    np.testing.assert_allclose(softmax_rows(Z.copy(), overwrite=True), expected, rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_large_softmaxes_of_huge_scores_stay_finite_block_by_block(dtype):
    """Scores far beyond exp()'s range (1e8, or 1e3 in float32) through the block-by-block path:
    the row maximum must be subtracted there too."""
    from core.softmax import CHUNKED_FROM, softmax_rows

    rng = np.random.default_rng(4)
    scale = 1e3 if dtype == "float32" else 1e8
    Z = (rng.normal(size=(2, 800, 700)) * scale).astype(dtype)
    assert Z.size >= CHUNKED_FROM
    A = softmax_rows(Z)
    assert np.isfinite(A).all()
    np.testing.assert_allclose(A.sum(axis=-1), 1, rtol=1e-5)
    Z64 = Z.astype(np.longdouble)  # the formula, in a range where exp(Z - max) cannot overflow
    E = np.exp(Z64 - Z64.max(axis=-1, keepdims=True))
    np.testing.assert_allclose(A, (E / E.sum(axis=-1, keepdims=True)).astype(dtype), atol=1e-6)
