"""core/threads.py: every item of a large pass done once, on more than one thread, errors raised."""

import threading
import time

import pytest

from core import threads


def _record(items, entries):
    seen, names = [], set()

    def work(item):
        names.add(threading.current_thread().name)
        seen.append(item)
        time.sleep(0.001)  # long enough that no one thread takes every item before the others start

    threads.each(work, items, entries)
    return seen, names


def test_a_large_pass_does_every_item_once_and_the_caller_takes_part():
    items = list(range(500))
    seen, names = _record(items, threads.PARALLEL_FROM)
    assert sorted(seen) == items  # none twice, none left out
    assert threading.current_thread().name in names
    assert len(names) > 1 or threads.WORKERS == 1  # the pool took part too


def test_a_small_pass_stays_on_the_callers_thread_in_order():
    items = list(range(50))
    seen, names = _record(items, threads.PARALLEL_FROM - 1)
    assert seen == items
    assert names == {threading.current_thread().name}


@pytest.mark.skipif(threads.WORKERS == 1, reason="one core: there is no other thread")
def test_the_pool_joins_in_when_the_caller_is_held_up():
    """The caller's first item waits until another thread has done one: only a pool thread can."""
    done_elsewhere = threading.Event()

    def work(item):
        if threading.current_thread().name.startswith("rows"):
            done_elsewhere.set()
        elif item == 0:
            assert done_elsewhere.wait(10), "no pool thread took an item"

    threads.each(work, range(200), threads.PARALLEL_FROM)


def test_an_error_in_any_item_is_raised_in_the_caller():
    def work(item):
        if item == 137:
            raise ValueError("item 137")

    with pytest.raises(ValueError, match="item 137"):
        threads.each(work, range(400), threads.PARALLEL_FROM)


def test_a_busy_pool_does_not_hold_the_caller():
    """With every pool thread taken by another pass, the caller does all of its items itself."""
    release = threading.Event()
    blockers = [threads._pool.submit(release.wait, 30) for _ in range(threads.WORKERS - 1)]
    try:
        seen, names = _record(list(range(100)), threads.PARALLEL_FROM)
        assert sorted(seen) == list(range(100))
        assert names == {threading.current_thread().name}
    finally:
        release.set()
        for blocker in blockers:
            blocker.result()


def _blas_threads() -> set[int]:
    from threadpoolctl import threadpool_info

    return {pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"}


def test_blas_is_held_to_one_thread_until_the_last_caller_leaves():
    """Two passes at once: BLAS stays on one thread while either runs, and gets its own number
    of threads back when both are done."""
    import numpy as np

    before = _blas_threads()
    assert before, "NumPy's BLAS is visible to threadpoolctl"
    first, second = threads.blas_on_one_thread(), threads.blas_on_one_thread()
    with first:
        assert _blas_threads() == {1}
        second.__enter__()
    assert _blas_threads() == {1}  # the second still runs
    a = np.ones((300, 300))
    assert (a @ a)[0, 0] == 300  # BLAS works on one thread
    second.__exit__(None, None, None)
    assert _blas_threads() == before


@pytest.mark.parametrize(
    "n_rows, row_length", [(1, 1), (7, 3), (2048, 2048), (300, 1000), (5, 10**6)]
)
def test_the_blocks_of_a_product_and_their_cache_sized_parts_cover_every_row_once(
    n_rows, row_length
):
    """product_blocks cuts the rows into runs of PRODUCT_BYTES (one row at least); within cuts
    each run into ROW_BYTES parts. Read back in order, both give 0..n_rows - 1 once each."""
    blocks = threads.product_blocks(n_rows, row_length, 4)
    assert [r for rows in blocks for r in range(rows.start, rows.stop)] == list(range(n_rows))
    parts = [part for rows in blocks for part in threads.within(rows, row_length, 4)]
    assert [r for part in parts for r in range(part.start, part.stop)] == list(range(n_rows))
    row_bytes = row_length * 4
    for rows in blocks:
        assert rows.stop - rows.start == min(
            max(1, threads.PRODUCT_BYTES // row_bytes), n_rows - rows.start
        )
    for part in parts:  # a cache-sized part, or the rest of its block
        assert 1 <= part.stop - part.start <= max(1, threads.ROW_BYTES // row_bytes)
    if n_rows == 2048 and row_length == 2048:  # the figures the constants were measured at
        assert [b.stop - b.start for b in blocks[:1]] == [256]
        assert [p.stop - p.start for p in parts[:1]] == [64]


@pytest.mark.parametrize("shape", [(2048, 512), (1001, 64), (3, 700, 96), (1, 8)])
def test_a_product_in_parts_of_rows_is_each_parts_own_product_on_one_blas_thread(shape):
    """matmul_rows: A's rows in WORKERS parts, each part's product BLAS's on one thread, bit for
    bit; and A @ B to float rounding (BLAS's own threads pick other kernels)."""
    import numpy as np
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(len(shape))
    A = rng.standard_normal(shape, dtype=np.float32)
    Bs = [rng.standard_normal((shape[-1], p), dtype=np.float32) for p in (shape[-1], 40)]
    before = _blas_threads()
    products = threads.matmul_rows(A, *Bs)
    assert _blas_threads() == before  # BLAS has its threads back
    rows = A.reshape(-1, shape[-1])
    step = -(-rows.shape[0] // threads.WORKERS)
    for B, product in zip(Bs, products, strict=True):
        assert product.shape == (*shape[:-1], B.shape[1]) and product.dtype == np.float32
        with threadpool_limits(1, "blas"):
            parts = [rows[at : at + step] @ B for at in range(0, rows.shape[0], step)]
        np.testing.assert_array_equal(product.reshape(-1, B.shape[1]), np.concatenate(parts))
        np.testing.assert_allclose(product, A @ B, rtol=1e-5, atol=1e-4)
