"""The loop-vs-matrix page's timing table: matrix, per-token loop and pure Python at a few n.

Run by measure/queue.py in a child process, like the cost page's measurement, so that a class
opening the page at once neither waits for it in every session nor times it under their load.
Like the cost page's, its passes run on one core and are timed by this thread's CPU time, which
the server's busy sessions do not stretch (measure/cost.py)."""

import time

import core
from core import threads
from measure import timing

TIMING_NS = (4, 16, 64, 256)
PYTHON_MAX_OPS = 3e6  # the pure-Python loop is skipped beyond this many multiply-adds


def measure_loop_times(
    d_model: int, n_heads: int, ns=TIMING_NS, on_step=lambda done, n: None
) -> list[dict]:
    """Best CPU seconds per pass (one core) of matrix, per-token loop and pure Python at each n
    (NaN = skipped)."""
    rows = []
    config = core.AttentionConfig(d_model=d_model, n_heads=n_heads)
    W = core.init_weights(config, n=max(ns))
    W_lists = [core.to_numpy(M).tolist() for M in vars(W).values()]
    with threads.on_one_core():
        for i, n in enumerate(ns):
            on_step(i / len(ns), n)
            rows.append(_timed_row(n, d_model, n_heads, W, W_lists))
    return rows


def _timed_row(n: int, d_model: int, n_heads: int, W, W_lists) -> dict:
    """One n's row: the best of each way, timed on this thread's CPU clock."""
    X = core.embed([f"t{i}" for i in range(n)], d_model) + core.positional_encoding(n, d_model)
    impls = {
        "matrix": lambda X=X: core.attention(X, W, n_heads, keep={"output"}),
        "loop": lambda X=X: core.attention_loop(X, W, n_heads),
    }
    ops = n * d_model * d_model * 4 + 2 * n * n * d_model
    if ops <= PYTHON_MAX_OPS:
        X_list = core.to_numpy(X).tolist()
        impls["python"] = lambda X_list=X_list: core.attention_scalar(X_list, *W_lists, n_heads)
    block = 2 if n <= 64 else 1
    times = timing.time_side_by_side(
        impls, rounds=2, block=block, pause=0.0, clock=time.thread_time
    )
    return {
        "n": n,
        **{
            name: times.get(name, {"best": float("nan")})["best"]
            for name in ("matrix", "loop", "python")
        },
    }
