"""core.attention_scalar, the pure-Python baseline the loop page times, computes attention."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core
from tests.support.oracles import reference


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 5),
    n_heads=st.integers(1, 3),
    d_k=st.integers(1, 3),
    d_v=st.integers(1, 3),
    d_model=st.integers(1, 5),
    causal=st.booleans(),
)
def test_pure_python_attention_equals_the_independent_reference(
    seed, n, n_heads, d_k, d_v, d_model, causal
):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, (n, d_model))
    W = core.Weights(
        W_Q=rng.normal(size=(d_model, n_heads * d_k)),
        W_K=rng.normal(size=(d_model, n_heads * d_k)),
        W_V=rng.normal(size=(d_model, n_heads * d_v)),
        W_O=rng.normal(size=(n_heads * d_v, d_model)),
    )
    out = core.attention_scalar(
        X.tolist(), *(M.tolist() for M in vars(W).values()), n_heads, causal
    )
    mask = np.tril(np.ones((n, n), bool)) if causal else None
    np.testing.assert_allclose(np.array(out), reference(X, W, n_heads, mask)["output"], atol=1e-12)


def test_one_token_attends_only_to_itself_so_the_output_is_x_W_V_W_O():
    # worked by hand: softmax over a single key is 1, so o = v = x W_V and output = x W_V W_O
    X = [[1.0, 2.0]]
    W_Q = [[1.0, 0.0], [0.0, 1.0]]
    W_V = [[1.0, 1.0], [0.0, 2.0]]  # x W_V = [1, 5]
    W_O = [[1.0, 0.0], [1.0, -1.0]]  # [1, 5] W_O = [6, -5]
    assert core.attention_scalar(X, W_Q, W_Q, W_V, W_O, 1) == [[6.0, -5.0]]


def test_a_two_token_causal_example_by_hand():
    # d = 1, one head, W_Q = W_K = W_V = W_O = [[1]]: q = k = v = x = [0, ln 3]
    # row 0 sees key 0 only -> 0; row 1: scores [0, ln3 * ln3], softmax weights w = e^s / sum
    x1 = float(np.log(3.0))
    out = core.attention_scalar([[0.0], [x1]], [[1.0]], [[1.0]], [[1.0]], [[1.0]], 1, causal=True)
    s = np.array([0.0, x1 * x1])
    w = np.exp(s) / np.exp(s).sum()
    assert out[0] == [0.0]
    assert out[1][0] == pytest.approx(w[1] * x1, abs=1e-15)
