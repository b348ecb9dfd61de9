"""Measurements for the cost page: attention against sequential loops as n grows, on the CPU
and, where CuPy finds a GPU, on the GPU too."""

import json
from functools import lru_cache, partial
from pathlib import Path

import numpy as np

import core
from measure import timing

COST_NS = (64, 128, 256, 512, 1024, 2048, 4096)
GPU_COST_NS = (*COST_NS, 8192)  # with a GPU the attention reaches n = 8192 ...
CPU_MAX_N = COST_NS[-1]  # ... and the CPU's measurements (time, memory, RNN) stop at 4096
LOOP_MAX_N = 1024  # the per-token loop stops here: beyond it a single pass takes seconds
SERIES = ("attention", "gpu", "rnn", "loop")
RECORDED_GPU = Path(__file__).resolve().parents[1] / "assets" / "gpu_timings.json"
RECORDED_COST = Path(__file__).resolve().parents[1] / "assets" / "cost_recorded.json"


def gpu_usable() -> bool:
    return core.active_backend().name == "cupy"


def cost_ns() -> tuple:
    return GPU_COST_NS if gpu_usable() else COST_NS


ROUNDS = 3  # passes over every n; a burst of load from elsewhere then spoils one n's round only


def measure_cost(
    ns, d_model: int, n_heads: int, on_step=lambda done, n: None, loop_max_n: int | None = None
) -> dict:
    """Best seconds per pass of attention (on the CPU, and on the GPU when one is usable), the RNN
    chain and the per-token loop, and the peak bytes of an attention pass keeping A, at each n.

    Each pass ends with its output on the host. The timings sweep all n ROUNDS times rather than
    finishing one n before the next, and keep each n's best. ``on_step(done, n)`` reports
    progress: the fraction done, and the n about to be measured.

    Memory is measured with tracemalloc, which is process-wide: the app runs this in a child
    process (measure/queue.py), never in a server thread."""
    loop_max_n = LOOP_MAX_N if loop_max_n is None else loop_max_n
    config = core.AttentionConfig(d_model=d_model, n_heads=n_heads, dtype="float32")
    W_best = core.init_weights(config)  # on the GPU where there is one
    W = W_best.like(np.zeros(1))  # the same weights on the host
    rng = np.random.default_rng(0)
    W_h = (rng.normal(size=(d_model, d_model)) / np.sqrt(d_model)).astype(np.float32)
    W_x = (rng.normal(size=(d_model, d_model)) / np.sqrt(d_model)).astype(np.float32)
    best = {n: dict.fromkeys(SERIES, float("nan")) for n in ns}
    memory = {}
    steps = [(r, n) for r in range(ROUNDS) for n in ns]
    for done, (r, n) in enumerate(steps):
        on_step(done / len(steps), n)
        X = core.to_numpy(core.embed([f"t{i}" for i in range(n)], d_model, dtype="float32"))
        impls = {}
        if n <= CPU_MAX_N:
            impls["attention"] = lambda X=X: core.attention(X, W, n_heads, keep={"output"})
            impls["rnn"] = lambda X=X: core.rnn_chain(X, W_h, W_x)
        if gpu_usable():
            X_gpu = core.active_backend().xp.asarray(X)
            impls["gpu"] = lambda X_gpu=X_gpu: core.to_numpy(
                core.attention(X_gpu, W_best, n_heads, keep={"output"}).output
            )
        if r == 0 and n <= loop_max_n:  # slow: timed in the first round only
            impls["loop"] = lambda X=X: core.attention_loop(X, W, n_heads)
        times = timing.time_side_by_side(impls, rounds=1, block=2, pause=0.0)
        for name, time in times.items():
            best[n][name] = min(time["best"], best[n][name]) if r else time["best"]
        if r == 0 and n <= CPU_MAX_N:
            keep_A = partial(core.attention, X, W, n_heads, keep={"A", "output"})
            memory[n] = timing.peak_bytes(keep_A) / 2**20
    return {
        "n": list(ns),
        "memory": [memory.get(n, float("nan")) for n in ns],
        **{name: [best[n][name] for n in ns] for name in SERIES},
    }


def gpu_from_n(result: dict):
    """The smallest n from which the GPU was faster at every larger n measured on both (None if
    never)."""
    both = [
        (n, gpu < cpu)
        for n, gpu, cpu in zip(result["n"], result["gpu"], result["attention"], strict=True)
        if np.isfinite(gpu) and np.isfinite(cpu)
    ]
    return next((n for i, (n, _) in enumerate(both) if all(win for _, win in both[i:])), None)


def _recorded(path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


@lru_cache(maxsize=1)
def recorded_gpu() -> dict | None:
    """What bench/gpu_timing.py measured on a GPU machine (assets/gpu_timings.json), if present."""
    return _recorded(RECORDED_GPU)


@lru_cache(maxsize=1)
def recorded_cost() -> dict | None:
    """The cost page's measurement recorded once on the app's reference machine (made by
    ``python -m bench.record_cost``), shown until someone measures here; None if absent."""
    return _recorded(RECORDED_COST)
