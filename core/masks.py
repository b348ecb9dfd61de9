"""Attention masks: True where a query may attend to a key."""

import numpy as np

from core.backend import asarray
from core.config import check_positive


def causal_mask(n: int):
    """bool [n, n]: query i may see keys j <= i (no peeking at later tokens)."""
    check_positive("n", n)
    return asarray(np.tril(np.ones((n, n), dtype=bool)), n=n)  # [n, n]


def padding_mask(lengths, n: int):
    """bool [b, n, n]: for sentence s, key j is allowed iff j < lengths[s] (padding is unseen)."""
    check_positive("n", n)
    lengths = np.asarray(lengths, dtype=np.int64)  # [b]
    allowed_key = np.arange(n)[None, :] < lengths[:, None]  # [b, n]
    return asarray(
        np.broadcast_to(allowed_key[:, None, :], (len(lengths), n, n)).copy(), n=n
    )  # [b, n, n]
