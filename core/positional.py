"""Sinusoidal positional encoding from "Attention Is All You Need"."""

import numpy as np

from core.backend import asarray
from core.config import check_positive


def positional_encoding(n: int, d_model: int, dtype: str = "float64"):
    """PE [n, d_model]: PE[pos, 2i] = sin(pos / 10000^(2i/d_model)), PE[pos, 2i+1] = cos(same)."""
    check_positive("n", n)
    check_positive("d_model", d_model)
    pos = np.arange(n, dtype=np.float64)[:, None]  # [n, 1]
    two_i = np.arange(0, d_model, 2, dtype=np.float64)[None, :]  # [1, ceil(d_model / 2)]
    angle = pos / 10000.0 ** (two_i / d_model)  # [n, ceil(d_model / 2)]
    PE = np.empty((n, d_model))  # [n, d_model]
    PE[:, 0::2] = np.sin(angle)
    PE[:, 1::2] = np.cos(angle[:, : d_model // 2])
    return asarray(PE.astype(dtype), n=n)
