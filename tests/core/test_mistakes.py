"""core/lessons/mistakes.py: each mistake computed on purpose differs from the right result the
way the page says."""

import math

import numpy as np
import pytest

import core
from core.lessons import mistakes
from core.softmax import softmax_along


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
