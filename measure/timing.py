"""Side-by-side timing (for bench/ and the app's timing tables), pure Python.

Blocks of calls per implementation, the order reversed each round.

Thread pools of NumPy's BLAS (and of other libraries) fight when calls alternate one by one, so each
implementation runs a block of calls, then a short pause, then the next implementation.
"""

import statistics
import threading
import time
import tracemalloc
from collections.abc import Callable

import numpy as np

from core import reuse


def time_side_by_side(
    impls: dict[str, Callable],
    rounds: int = 5,
    block: int = 3,
    pause: float = 0.1,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, dict]:
    """Per implementation: best and median seconds per call over rounds x block calls, read on
    ``clock`` (wall time; ``time.thread_time`` for the calling thread's CPU time, which a busy
    machine does not stretch while the thread waits for a core)."""
    samples = {name: [] for name in impls}
    order = list(impls)
    for name in order:  # warm up caches, allocators and thread pools once
        impls[name]()
    for r in range(rounds):
        for name in order if r % 2 == 0 else reversed(order):
            for _ in range(block):
                start = clock()
                impls[name]()
                samples[name].append(clock() - start)
            time.sleep(pause)
    return {name: {"best": min(s), "median": statistics.median(s)} for name, s in samples.items()}


_TRACING = threading.Lock()


def peak_bytes(call: Callable) -> int:
    """Peak bytes allocated through Python's allocator and NumPy's during one call.

    tracemalloc is process-wide: it counts every thread's allocations, and starting or stopping it
    from several threads at once crashes CPython. Calls are serialised here, but the count is only
    the call's own in a process where nothing else runs: a server measures in a child process
    (measure/queue.py). Large arrays are counted as the call would allocate them from nothing:
    free buffers that core/reuse.py could hand it are dropped first."""
    with _TRACING:
        reuse.drop_free()
        tracemalloc.start()
        try:
            call()
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()


def growth_exponent(ns, values) -> float:
    """Slope of log(value) against log(n): value ~ n^slope."""
    return growth_fit(ns, values)[0]


def growth_fit(ns, values) -> tuple[float, float]:
    """(slope, R²) of the straight line through log(value) against log(n): value ~ n^slope, and
    how much of the spread of log(value) that line explains (1 = every point on it)."""
    x, y = np.log(np.asarray(ns, dtype=float)), np.log(np.asarray(values, dtype=float))
    slope, intercept = np.polyfit(x, y, 1)
    residual = float(np.sum((y - (slope * x + intercept)) ** 2))
    total = float(np.sum((y - y.mean()) ** 2))
    return float(slope), 1.0 - residual / total if total > 0 else 1.0


def fmt_seconds(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:8.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:8.2f} ms"
    return f"{seconds:8.2f} s "
