"""Why divide by sqrt(d_k): dot products of random vectors, softmax sharpness and its gradient."""

import numpy as np


def dot_products(d_k: int, samples: int, seed: int = 0) -> np.ndarray:
    """q . k for ``samples`` pairs of vectors with independent N(0, 1) entries: variance d_k."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((samples, d_k))  # [samples, d_k]
    k = rng.standard_normal((samples, d_k))  # [samples, d_k]
    return np.einsum("sd,sd->s", q, k)  # [samples]


def _softmax(S: np.ndarray) -> np.ndarray:
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


def softmax_sharpness(d_k: int, n_keys: int, scaled: bool, rows: int = 256, seed: int = 0):
    """Mean over random query rows of (largest weight, entropy in nats, softmax gradient size).

    The gradient size is the Frobenius norm of the softmax Jacobian diag(a) - a aᵀ: it shrinks
    towards 0 when one weight takes everything (saturation), so learning stalls.
    """
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((rows, 1, d_k))  # [rows, 1, d_k]
    K = rng.standard_normal((rows, n_keys, d_k))  # [rows, n_keys, d_k]
    S = (q @ K.transpose(0, 2, 1))[:, 0, :]  # [rows, n_keys]
    A = _softmax(S / np.sqrt(d_k) if scaled else S)  # [rows, n_keys]
    entropy = -np.sum(A * np.log(np.where(A > 0, A, 1.0)), axis=-1)  # [rows]
    jacobian = A[:, :, None] * np.eye(n_keys)[None] - A[:, :, None] * A[:, None, :]
    gradient = np.sqrt(np.sum(jacobian**2, axis=(1, 2)))  # [rows]
    return float(A.max(axis=-1).mean()), float(entropy.mean()), float(gradient.mean())
