"""Random generators keyed by strings, identical in every process (unlike the salted ``hash()``)."""

import hashlib

import numpy as np


def rng_for(*key) -> np.random.Generator:
    """A NumPy generator seeded from a stable digest of ``key``."""
    digest = hashlib.blake2b("\x1f".join(map(str, key)).encode("utf-8"), digest_size=16).digest()
    return np.random.default_rng(int.from_bytes(digest, "little"))


def rounded_weights(*key, rows: int, cols: int) -> np.ndarray:
    """A random [rows, cols] matrix of variance 1/fan_in (1/rows), rounded to 0.01 so that it can
    be copied onto paper; the same for the same ``key`` in every process."""
    W = rng_for(*key, rows, cols).normal(0.0, rows**-0.5, (rows, cols))
    return np.round(W, 2)
