"""Random generators keyed by strings, identical in every process (unlike the salted ``hash()``)."""

import hashlib

import numpy as np


def rng_for(*key) -> np.random.Generator:
    """A NumPy generator seeded from a stable digest of ``key``."""
    digest = hashlib.blake2b("\x1f".join(map(str, key)).encode("utf-8"), digest_size=16).digest()
    return np.random.default_rng(int.from_bytes(digest, "little"))
