"""How a real decoder's layer differs from the walkthrough's, in the model's own numbers: RoPE
(q·k depends only on how far apart two tokens are), RMSNorm and QK-norm, read off the model's
first layer with its own code (core/pretrained/decoder.py's project and rms_norm), so that each
model (Gemma's QK-norm and local RoPE base, SmolLM2's neither) says its own."""

import math

import numpy as np

from core.backend import to_numpy
from core.pretrained.decoder import rms_norm


def rope_scores(model, ids, shift: int) -> tuple[float, float]:
    """Layer 0, query head 0: the last piece's q against the piece before it's k, scaled, at
    their own positions and both moved by ``shift``: equal up to rounding (RoPE's promise)."""
    c, w = model.config, model.layers[0]
    x = rms_norm(model.embed(ids[-2:]), w.attn_norm, c.eps)  # [2, d_model]
    at = np.array([len(ids) - 2, len(ids) - 1])
    scores = []
    for move in (0, shift):
        q, k, _ = model.project(0, x, at + move)  # q [h, 2, hd], k [n_kv, 2, hd], RoPE applied
        q, k = to_numpy(q), to_numpy(k)
        scores.append(float(q[0, 1] @ k[0, 0]) / math.sqrt(c.head_dim))  # head 0 reads K/V 0
    return scores[0], scores[1]


def norms(model, token: int) -> tuple[float, float, float, float | None]:
    """Layer 0, one piece: its embedding row's mean and RMS as it enters the layer, and its
    first query head's length before QK-norm and after (None: the model has no QK-norm)."""
    c, w = model.config, model.layers[0]
    x = model.embed([token])[0]  # [d_model] (× √d_model where the model scales it)
    q_raw = model.projections(0, rms_norm(x[None, :], w.attn_norm, c.eps))[0][0, 0]  # [head_dim]
    q_normed = rms_norm(q_raw, w.q_norm, c.eps) if c.qk_norm else None
    x, q_raw = to_numpy(x), to_numpy(q_raw)
    after = None if q_normed is None else float(np.linalg.norm(to_numpy(q_normed)))
    return float(x.mean()), float(np.sqrt((x * x).mean())), float(np.linalg.norm(q_raw)), after
