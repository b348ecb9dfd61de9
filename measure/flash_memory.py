"""The flash page's memory chart: peak MB of the full n x n computation against the tiled one.

Measured with tracemalloc, which is process-wide, so measure/queue.py runs it in a child process
once per server and every session shares the result."""

from functools import partial

import numpy as np

from core.variants.flash import flash_attention, full_attention
from measure import timing

FLASH_NS = (256, 512, 1024, 2048)


def measure_flash_memory(
    ns=FLASH_NS, d_k: int = 64, tile: int = 64, on_step=lambda done, n: None
) -> dict:
    """Peak MB of the full computation and of the tiled one at each n, one head, float64."""
    rng = np.random.default_rng(0)
    result = {"n": list(ns), "full": [], "tiled": []}
    Q, K, V = (rng.normal(size=(ns[0], d_k)) for _ in range(3))
    full_attention(Q, K, V)  # once untraced: a first call's one-time allocations (NumPy's
    flash_attention(Q, K, V, tile, tile)  # caches, about 7.5 MB) are no pass's memory
    for i, n in enumerate(ns):
        on_step(i / len(ns), n)
        Q, K, V = (rng.normal(size=(n, d_k)) for _ in range(3))
        result["full"].append(timing.peak_bytes(partial(full_attention, Q, K, V)) / 2**20)
        tiled = partial(flash_attention, Q, K, V, tile, tile)
        result["tiled"].append(timing.peak_bytes(tiled) / 2**20)
    return result
