"""core/reuse.py: a large array's memory is handed out again once nobody holds it, and never while
anyone does (the array, a slice, a view of a view, a memoryview, a trace's field)."""

import threading

import numpy as np
import pytest

import core
from core import reuse

SHAPE = (8, 512, 256)  # 4 MiB of float32: the smallest size the pool takes


@pytest.fixture(autouse=True)
def own_pool(monkeypatch):
    monkeypatch.setattr(reuse, "_buffers", [])


def address(array) -> int:
    return array.__array_interface__["data"][0]


def test_a_dropped_array_is_handed_out_again():
    first = reuse.empty(SHAPE, np.float32)
    where = address(first)
    del first
    again = reuse.empty(SHAPE, np.float32)
    assert address(again) == where
    assert again.shape == SHAPE and again.dtype == np.float32 and again.flags.c_contiguous
    assert reuse.held_bytes() == again.nbytes  # one buffer, not two


@pytest.mark.parametrize(
    "hold",
    [
        lambda a: a,
        lambda a: a[3:5],
        lambda a: a.reshape(-1)[10:].view(np.int32),
        lambda a: memoryview(a),
        lambda a: a.T,
    ],
    ids=["itself", "a slice", "a view of a view", "a memoryview", "its transpose"],
)
def test_an_array_anyone_holds_is_never_handed_out(hold):
    first = reuse.empty(SHAPE, np.float32)
    first[...] = 7.0
    kept = hold(first)
    del first
    second = reuse.empty(SHAPE, np.float32)
    second[...] = -1.0
    seen = np.asarray(kept)
    assert not np.shares_memory(seen, second)
    assert np.all(seen.view(np.float32) == 7.0) if seen.dtype == np.int32 else np.all(seen == 7.0)


def test_small_arrays_and_other_sizes_get_memory_of_their_own():
    small = reuse.empty((100, 100), np.float32)
    assert reuse.held_bytes() == 0 and small.shape == (100, 100)
    first = reuse.empty(SHAPE, np.float32)
    where = address(first)
    del first
    other = reuse.empty((8, 512, 512), np.float32)  # a free buffer of another size is not it
    assert address(other) != where and reuse.held_bytes() == 4 * 2**20 + 8 * 2**20


def test_the_pool_stays_under_its_limit_dropping_free_buffers_oldest_first(monkeypatch):
    monkeypatch.setattr(reuse, "KEEP_BYTES", 12 * 2**20)
    held = [reuse.empty(SHAPE, np.float32) for _ in range(4)]  # 16 MiB asked, 12 pooled
    assert reuse.held_bytes() == 12 * 2**20
    assert len({address(a) for a in held}) == 4
    del held
    big = reuse.empty((8, 512, 512), np.float32)  # 8 MiB: two free 4-MiB buffers make room
    assert reuse.held_bytes() == 4 * 2**20 + 8 * 2**20
    assert big.nbytes == 8 * 2**20


def test_threads_taking_arrays_at_once_never_share_one():
    clashes, barrier = [], threading.Barrier(4)

    def work(mark: float) -> None:
        barrier.wait()
        for _ in range(40):
            a = reuse.empty(SHAPE, np.float32)
            a[0, 0, :8] = mark
            a[-1, -1, -8:] = mark
            if not (np.all(a[0, 0, :8] == mark) and np.all(a[-1, -1, -8:] == mark)):
                clashes.append(mark)
            del a

    workers = [threading.Thread(target=work, args=(float(i),)) for i in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert not clashes
    assert reuse.held_bytes() <= 4 * reuse.empty(SHAPE, np.float32).nbytes


def test_a_trace_the_caller_keeps_is_not_written_over_by_the_next_call():
    n = 400  # 8 heads: 8 x 400 x 400 float32 = 5 MB a field, pooled
    rng = np.random.default_rng(3)
    W = core.init_weights(core.AttentionConfig(d_model=32, n_heads=8, dtype="float32"))
    X1, X2 = (rng.normal(size=(n, 32)).astype(np.float32) for _ in range(2))
    kept = core.attention(X1, W, 8, keep={"S", "A", "output"})
    S, A = kept.S.copy(), kept.A.copy()
    other = core.attention(X2, W, 8, keep={"S", "A", "output"})
    assert not np.shares_memory(kept.A, other.A) and not np.shares_memory(kept.S, other.S)
    assert np.array_equal(kept.S, S) and np.array_equal(kept.A, A)
    where = {address(kept.A), address(kept.S)}
    del kept
    again = core.attention(X2, W, 8, keep={"S", "A", "output"})
    assert {address(again.A), address(again.S)} == where  # the dropped trace's memory
    assert np.array_equal(again.A, other.A) and np.array_equal(again.S, other.S)


def test_a_memory_measurement_counts_the_fields_even_when_the_pool_could_serve_them():
    """The cost page's memory line (measure/cost.py) times the call first, which leaves free
    buffers of the very size; its peak must still count A [8, n, n] and the softmax's block."""
    from measure import timing

    n = 400
    W = core.init_weights(core.AttentionConfig(d_model=32, n_heads=8, dtype="float32"))
    X = np.random.default_rng(4).normal(size=(n, 32)).astype(np.float32)
    call = lambda: core.attention(X, W, 8, keep={"A", "output"})  # noqa: E731
    cold = timing.peak_bytes(call)
    for _ in range(3):
        call()  # warm: A's buffer is free in the pool now
    assert reuse.held_bytes() >= 8 * n * n * 4
    warm = timing.peak_bytes(call)
    assert warm >= 8 * n * n * 4  # A itself, allocated inside the measurement
    assert warm == pytest.approx(cold, rel=0.05)
