"""Why divide by sqrt(d_k): dot products of random vectors, softmax sharpness and its gradient."""

import numpy as np

from core.softmax import softmax_rows


def dot_products(d_k: int, samples: int, seed: int = 0) -> np.ndarray:
    """q . k for ``samples`` pairs of vectors with independent N(0, 1) entries: variance d_k."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((samples, d_k))  # [samples, d_k]
    k = rng.standard_normal((samples, d_k))  # [samples, d_k]
    return np.einsum("sd,sd->s", q, k)  # [samples]


def softmax_sharpness(d_k: int, n_keys: int, scaled: bool, rows: int = 256, seed: int = 0):
    """Mean over random query rows of (largest weight, entropy in nats, softmax gradient size).

    The gradient size is the Frobenius norm of the softmax Jacobian diag(a) - a aᵀ: it shrinks
    towards 0 when one weight takes everything (saturation), so learning stalls.
    """
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((rows, 1, d_k))  # [rows, 1, d_k]
    K = rng.standard_normal((rows, n_keys, d_k))  # [rows, n_keys, d_k]
    S = (q @ K.transpose(0, 2, 1))[:, 0, :]  # [rows, n_keys]
    A = softmax_rows(S / np.sqrt(d_k) if scaled else S)  # [rows, n_keys]
    entropy = -np.sum(A * np.log(np.where(A > 0, A, 1.0)), axis=-1)  # [rows]
    gradient = jacobian_size(A)  # [rows]
    return float(A.max(axis=-1).mean()), float(entropy.mean()), float(gradient.mean())


def jacobian_size(A: np.ndarray) -> np.ndarray:
    """The Frobenius norm of the softmax Jacobian diag(a) − a aᵀ for each row a of A [..., n].

    It is small at both ends: an even row (every weight 1/n) gives √(n − 1) / n, a one-hot row
    gives 0; in between, two keys at one half each give 1/2.
    """
    A = np.asarray(A, dtype=np.float64)
    n = A.shape[-1]
    jacobian = A[..., :, None] * np.eye(n) - A[..., :, None] * A[..., None, :]  # [..., n, n]
    return np.sqrt(np.sum(jacobian**2, axis=(-2, -1)))


def gradient_at_spread(spread: float, n_keys: int, rows: int = 4000, seed: int = 0) -> float:
    """Mean softmax gradient size over rows of N(0, spread²) scores: where a spread sits."""
    S = np.random.default_rng(seed).standard_normal((rows, n_keys)) * spread  # [rows, n_keys]
    return float(jacobian_size(softmax_rows(S)).mean())


def score_row(d_k: int, n_keys: int, seed: int = 0) -> np.ndarray:
    """One random query against ``n_keys`` random keys (N(0, 1) entries): q · k_j, [n_keys]."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal(d_k)  # [d_k]
    K = rng.standard_normal((n_keys, d_k))  # [n_keys, d_k]
    return K @ q


def unscaled_gradient_larger(d_ks, unscaled, scaled) -> list[int]:
    """The d_k where the unscaled softmax's gradient is above the scaled one's."""
    return [d_k for d_k, u, s in zip(d_ks, unscaled, scaled) if u > s]
