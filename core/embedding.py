"""Token embeddings X: a fixed random vector per token, stable across runs and processes."""

import numpy as np

from core.backend import asarray
from core.config import check_positive
from core.seeding import rng_for


def embed(tokens: list[str], d_model: int, seed: int = 0, dtype: str = "float64"):
    """X [n, d_model]: row i depends only on (tokens[i], d_model, seed), values rounded to 0.01."""
    check_positive("d_model", d_model)
    rows = [rng_for("embed", seed, d_model, token).standard_normal(d_model) for token in tokens]
    X = np.round(
        np.asarray(rows, dtype=np.float64).reshape(len(tokens), d_model), 2
    )  # [n, d_model]
    return asarray(X.astype(dtype), n=len(tokens))
