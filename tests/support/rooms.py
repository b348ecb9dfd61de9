"""What the room tests and bench/room_store.py share: threads released together, and a real
question about a small trace."""

import threading

import numpy as np

import core
from core.lessons.questions import make_question


def race(work, n: int = 24) -> list:
    """``work(i)`` in n threads released together; their results in order."""
    barrier, results = threading.Barrier(n), [None] * n

    def one(i):
        barrier.wait()
        results[i] = work(i)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    [thread.start() for thread in threads]
    [thread.join() for thread in threads]
    return results


def sample_question(seed: int = 0):
    """A row-sum question about query row 2 of a causal 4-token trace."""
    X = np.random.default_rng(seed).normal(size=(4, 4))
    W = core.init_weights(core.AttentionConfig(d_model=4, n_heads=2))
    trace = core.attention(X, W, 2, core.causal_mask(4))
    fields = {name: getattr(trace, name) for name in ("Q", "K", "V", "A", "output")}
    return make_question("row_sum", "softmax", fields, list("abcd"), 0, 2, core.causal_mask(4))
