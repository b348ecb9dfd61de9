"""Measurements for the cost page: attention against sequential loops as n grows, on the CPU
and, where CuPy finds a GPU, on the GPU too."""

import json
import time
from functools import lru_cache, partial
from pathlib import Path

import numpy as np

import core
from core import threads
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


ROUNDS = 5  # sweeps over every n: each n keeps its best, and the sweeps' own growths must agree
FIT_FROM_N = 512  # the growth is fitted from here (and from 2 d_model) up to CPU_MAX_N, where the
# n² work of Q Kᵀ and A V outweighs the projections' n d_model² and a call's fixed cost
R2_MIN = 0.98  # a log-log line that explains less than this is not one power of n
SPREAD_MAX = 0.25  # sweeps whose growths lie further apart than this: the machine was too busy


def measure_cost(
    ns, d_model: int, n_heads: int, on_step=lambda done, n: None, loop_max_n: int | None = None
) -> dict:
    """Best seconds per pass of attention (on the CPU, and on the GPU when one is usable), the RNN
    chain and the per-token loop, and the peak bytes of an attention pass keeping A, at each n;
    each sweep's attention times (``sweeps``) and the fitted growth (``fit``, fitted_growth).

    On the CPU every pass runs on one core (threads.on_one_core) and is timed by the CPU time of
    this thread, which other processes do not stretch: while the server's sessions hold the cores
    this process waits, and its wall time grows by the wait, its CPU time does not (issue 44: a
    fit of wall times under 24 presses gave n^1.20, this one n^1.8-2.0). The GPU's passes are
    timed on the wall clock, each ending with its output on the host. The sweeps go over all n
    ROUNDS times rather than finishing one n before the next. ``on_step(done, n)`` reports
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
    sweeps = [dict.fromkeys(ns, float("nan")) for _ in range(ROUNDS)]
    best = {n: dict.fromkeys(SERIES, float("nan")) for n in ns}
    memory = {}
    steps = [(r, n) for r in range(ROUNDS) for n in ns]
    with threads.on_one_core():
        for done, (r, n) in enumerate(steps):
            on_step(done / len(steps), n)
            X = core.to_numpy(core.embed([f"t{i}" for i in range(n)], d_model, dtype="float32"))
            on_cpu = {}
            if n <= CPU_MAX_N:
                on_cpu["attention"] = lambda X=X: core.attention(X, W, n_heads, keep={"output"})
                on_cpu["rnn"] = lambda X=X: core.rnn_chain(X, W_h, W_x)
            if r == 0 and n <= loop_max_n:  # slow: timed in the first sweep only
                on_cpu["loop"] = lambda X=X: core.attention_loop(X, W, n_heads)
            times = timing.time_side_by_side(
                on_cpu, rounds=1, block=2, pause=0.0, clock=time.thread_time
            )
            if gpu_usable():
                X_gpu = core.active_backend().xp.asarray(X)
                on_gpu = {
                    "gpu": lambda X_gpu=X_gpu: core.to_numpy(
                        core.attention(X_gpu, W_best, n_heads, keep={"output"}).output
                    )
                }
                times |= timing.time_side_by_side(on_gpu, rounds=1, block=2, pause=0.0)
            for name, timed in times.items():
                best[n][name] = min(timed["best"], best[n][name]) if r else timed["best"]
            sweeps[r][n] = times.get("attention", {"best": float("nan")})["best"]
            if r == 0 and n <= CPU_MAX_N:
                keep_A = partial(core.attention, X, W, n_heads, keep={"A", "output"})
                memory[n] = timing.peak_bytes(keep_A) / 2**20
    result = {
        "n": list(ns),
        "memory": [memory.get(n, float("nan")) for n in ns],
        **{name: [best[n][name] for n in ns] for name in SERIES},
        "sweeps": [[sweep[n] for n in ns] for sweep in sweeps],
    }
    result["fit"] = fitted_growth(result, d_model)
    result["busy"] = not result["fit"]["reliable"]  # measure/queue.py keeps no busy result
    return result


def fitted_growth(result: dict, d_model: int) -> dict:
    """The growth of attention's time, its memory and the RNN's time, each ~ n^k fitted over
    n = max(FIT_FROM_N, 2 d_model) … CPU_MAX_N: ``time``, ``memory``, ``rnn``; the time fit's
    ``r2``; each sweep's own growth (``sweeps``, none in a result recorded without them) and
    their ``spread``; ``reliable`` when the fit explains at least R2_MIN and the sweeps agree
    within SPREAD_MAX."""
    ns = result["n"]
    fit_from = max(FIT_FROM_N, 2 * d_model)
    big = [i for i, n in enumerate(ns) if fit_from <= n <= CPU_MAX_N]
    if len(big) < 3:  # too few sizes there (a short list of n): the largest three on the CPU
        big = [i for i, n in enumerate(ns) if n <= CPU_MAX_N][-3:]
    big_ns = [ns[i] for i in big]

    def fit(values) -> tuple[float, float]:
        return timing.growth_fit(big_ns, [values[i] for i in big])

    time_k, r2 = fit(result["attention"])
    sweeps = [fit(sweep)[0] for sweep in result.get("sweeps", [])]
    spread = max(sweeps) - min(sweeps) if sweeps else 0.0
    return {
        "from_n": big_ns[0],
        "to_n": big_ns[-1],
        "time": time_k,
        "memory": fit(result["memory"])[0],
        "rnn": fit(result["rnn"])[0],
        "r2": r2,
        "sweeps": sweeps,
        "spread": spread,
        "reliable": bool(r2 >= R2_MIN and spread <= SPREAD_MAX),
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
