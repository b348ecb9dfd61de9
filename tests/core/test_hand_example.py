"""Worked by hand: an n = 3 example, the textbook single-head formula and positional-encoding values."""

import math

import numpy as np

import core


def test_three_tokens_worked_by_hand():
    # Three tokens in d_model = 2, one head (d_k = d_v = 2), W_Q = W_K = W_O = I:
    #   X = [[1, 0],      Q = K = X            V = X W_V, W_V = [[1, 2], [3, 4]]
    #        [0, 1],                               = [[1, 2], [3, 4], [4, 6]]
    #        [1, 1]]
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    eye = np.eye(2)
    W = core.Weights(W_Q=eye, W_K=eye, W_V=np.array([[1.0, 2.0], [3.0, 4.0]]), W_O=eye)
    trace = core.attention(X, W, n_heads=1)

    # S = Q K^T, entry (i, j) = q_i . k_j:
    #   row 0: [1*1+0*0, 1*0+0*1, 1*1+0*1] = [1, 0, 1]
    #   row 1: [0, 1, 1];  row 2: [1, 1, 2]
    np.testing.assert_array_equal(trace.S[0], [[1, 0, 1], [0, 1, 1], [1, 1, 2]])
    # d_k = 2, so divide by sqrt(2) = 1.41421: row 0 becomes [0.70711, 0, 0.70711]
    np.testing.assert_allclose(trace.S_scaled[0, 0], [0.70711, 0.0, 0.70711], atol=1e-5)
    # softmax of row 0: e^0.70711 = 2.02811, e^0 = 1, sum = 2.02811 + 1 + 2.02811 = 5.05623
    #   weights = [2.02811 / 5.05623, 1 / 5.05623, 2.02811 / 5.05623] = [0.40111, 0.19778, 0.40111]
    np.testing.assert_allclose(trace.A[0, 0], [0.40111, 0.19778, 0.40111], atol=1e-5)
    # row 2: scaled [0.70711, 0.70711, 1.41421]; exps [2.02811, 2.02811, 4.11325], sum 8.16947
    #   weights = [0.24826, 0.24826, 0.50349]
    np.testing.assert_allclose(trace.A[0, 2], [0.24826, 0.24826, 0.50349], atol=1e-5)
    # output_0 = 0.40111*[1, 2] + 0.19778*[3, 4] + 0.40111*[4, 6]
    #          = [0.40111 + 0.59334 + 1.60444, 0.80222 + 0.79112 + 2.40666] = [2.59889, 4.00000]
    np.testing.assert_allclose(trace.output[0], [2.59889, 4.0], atol=1e-5)
    # output_2 = 0.24826*[1, 2] + 0.24826*[3, 4] + 0.50349*[4, 6] = [3.00698, 4.51047]
    np.testing.assert_allclose(trace.output[2], [3.00698, 4.51047], atol=1e-5)


def test_one_head_is_the_textbook_formula():
    rng = np.random.default_rng(7)
    n, d_model, d_k, d_v = 5, 6, 4, 3
    X = rng.normal(size=(n, d_model))
    W = core.Weights(
        W_Q=rng.normal(size=(d_model, d_k)),
        W_K=rng.normal(size=(d_model, d_k)),
        W_V=rng.normal(size=(d_model, d_v)),
        W_O=rng.normal(size=(d_v, d_model)),
    )
    Q, K, V = X @ W.W_Q, X @ W.W_K, X @ W.W_V
    S = Q @ K.T / math.sqrt(d_k)
    A = np.exp(S) / np.exp(S).sum(axis=1, keepdims=True)  # small numbers: the naive softmax is fine
    trace = core.attention(X, W, n_heads=1)
    np.testing.assert_allclose(trace.A[0], A, atol=1e-12)
    np.testing.assert_allclose(trace.O[0], A @ V, atol=1e-12)
    np.testing.assert_allclose(trace.output, A @ V @ W.W_O, atol=1e-12)


def test_positional_encoding_spot_values():
    PE = core.to_numpy(core.positional_encoding(50, 16))
    assert PE.shape == (50, 16)
    # pos 0: sin(0) = 0 on even dims, cos(0) = 1 on odd dims
    np.testing.assert_array_equal(PE[0, 0::2], 0.0)
    np.testing.assert_array_equal(PE[0, 1::2], 1.0)
    # pos 1, i = 0: angle = 1 / 10000^0 = 1 -> sin(1) = 0.841471, cos(1) = 0.540302
    np.testing.assert_allclose(PE[1, :2], [0.841471, 0.540302], atol=1e-6)
    # pos 3, 2i = 4 (i = 2): angle = 3 / 10000^(4/16) = 3 / 10 = 0.3 -> sin 0.295520, cos 0.955336
    np.testing.assert_allclose(PE[3, 4:6], [0.295520, 0.955336], atol=1e-6)
    # pos 49, 2i = 14: angle = 49 / 10000^(14/16) = 49 / 3162.2777 = 0.0154952
    angle = 49 / 10000 ** (14 / 16)
    np.testing.assert_allclose(PE[49, 14:16], [math.sin(angle), math.cos(angle)], atol=1e-12)


def test_positional_encoding_with_an_odd_width():
    PE = core.to_numpy(core.positional_encoding(4, 5))
    assert PE.shape == (4, 5)
    np.testing.assert_allclose(PE[2, 4], math.sin(2 / 10000 ** (4 / 5)), atol=1e-12)
