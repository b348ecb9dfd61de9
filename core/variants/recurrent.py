"""An RNN-style chain for comparison: h_t needs h_{t-1}, so n steps must run one after another."""

import numpy as np


def rnn_chain(X: np.ndarray, W_h: np.ndarray, W_x: np.ndarray) -> np.ndarray:
    """H [n, d]: h_t = tanh(h_{t-1} W_h + x_t W_x); the path from token 0 to token t is t steps."""
    n, d = X.shape[0], W_h.shape[0]
    H = np.zeros((n, d), dtype=X.dtype)  # [n, d]
    h = np.zeros(d, dtype=X.dtype)  # [d]
    for t in range(n):
        h = np.tanh(h @ W_h + X[t] @ W_x)  # waits for the previous step
        H[t] = h
    return H
