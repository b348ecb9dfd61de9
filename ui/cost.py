"""Measurements for the cost page: attention against sequential loops as n grows."""

from functools import partial

import numpy as np

import core

COST_NS = (64, 128, 256, 512, 1024, 2048, 4096)
LOOP_MAX_N = 1024  # the per-token loop stops here: beyond it a single pass takes seconds


def measure(ns, d_model: int, n_heads: int, on_step=lambda n: None) -> dict:
    """Best seconds per pass of attention, the RNN chain and the per-token loop, and the peak
    bytes of an attention pass keeping A, at each n. ``on_step(n)`` reports progress."""
    config = core.AttentionConfig(d_model=d_model, n_heads=n_heads, dtype="float32")
    W = core.init_weights(config)
    rng = np.random.default_rng(0)
    W_h = (rng.normal(size=(d_model, d_model)) / np.sqrt(d_model)).astype(np.float32)
    W_x = (rng.normal(size=(d_model, d_model)) / np.sqrt(d_model)).astype(np.float32)
    result = {"n": [], "attention": [], "rnn": [], "loop": [], "memory": []}
    for n in ns:
        on_step(n)
        X = core.embed([f"t{i}" for i in range(n)], d_model, dtype="float32")
        X_host = core.to_numpy(X)
        impls = {
            "attention": lambda X=X: core.attention(X, W, n_heads, keep={"output"}),
            "rnn": lambda X_host=X_host: core.rnn_chain(X_host, W_h, W_x),
        }
        times = core.time_side_by_side(impls, rounds=3, block=2, pause=0.0)
        if n <= LOOP_MAX_N:  # slow: one warm-up and one timed call
            loop = {"loop": lambda X=X: core.attention_loop(X, W, n_heads)}
            times.update(core.time_side_by_side(loop, rounds=1, block=1, pause=0.0))
        result["n"].append(n)
        for name in ("attention", "rnn", "loop"):
            result[name].append(times[name]["best"] if name in times else float("nan"))
        peak = core.peak_bytes(partial(core.attention, X, W, n_heads, keep={"weights", "output"}))
        result["memory"].append(peak / 2**20)
    return result
