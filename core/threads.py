"""The cores of this machine for NumPy's passes over n x n arrays.

NumPy runs an element-wise ufunc on one thread, but releases the GIL inside it (and inside BLAS),
so blocks of rows handed to a pool of threads run on every core at once (as torch's kernels do).
While the pool works, ``blas_on_one_thread`` holds BLAS to one thread per call: the pool's threads
are the cores, and a product inside a block never starts threads of its own to fight them.
The projections go the same way (``matmul_rows``): after a product BLAS shared out, its idle
threads spin for a while and take a core from whatever runs next.

Small arrays (every sentence a learner types) stay on the caller's thread: below PARALLEL_FROM
entries a pool costs more than it saves, and a server's sessions keep their cores to themselves.
"""

import functools
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np
from threadpoolctl import ThreadpoolController

PARALLEL_FROM = 1 << 20  # entries of an n x n pass; below this, one thread
ROW_BYTES = 1 << 19  # a block of rows stays in a core's L2 cache through the fused passes
PRODUCT_BYTES = 1 << 21  # the rows of one Q Kᵀ and one A V: BLAS packs Kᵀ and V once per call,
# so 256 rows of n = 2048 run a third faster than 64 (62 against 46 GFLOP/s on one core here);
# the element-wise passes between them still go ROW_BYTES at a time (``within``)
WORKERS = max(1, min(8, os.cpu_count() or 1))  # threads on a large pass, the caller's included
_pool = ThreadPoolExecutor(max_workers=max(1, WORKERS - 1), thread_name_prefix="rows")
_blas = {"users": 0, "limit": None, "lock": threading.Lock()}


@functools.cache
def _controller() -> ThreadpoolController:
    return ThreadpoolController()  # scans the loaded libraries: once, at the first large pass


@contextmanager
def blas_on_one_thread():
    """BLAS on one thread while the block runs (the process's setting: counted, so that the last
    of several callers at once gives BLAS its threads back)."""
    with _blas["lock"]:
        if _blas["users"] == 0:
            _blas["limit"] = _controller().limit(limits=1, user_api="blas")
        _blas["users"] += 1
    try:
        yield
    finally:
        with _blas["lock"]:
            _blas["users"] -= 1
            if _blas["users"] == 0:
                _blas["limit"].restore_original_limits()


@contextmanager
def on_one_core():
    """Every pass on the calling thread and BLAS on one thread while the block runs, in the whole
    process: for a measurement's own process (measure/cost.py), whose passes then take the time
    of their work on one core, so that the calling thread's CPU time is all of that work."""
    global WORKERS
    saved, WORKERS = WORKERS, 1
    try:
        with blas_on_one_thread():
            yield
    finally:
        WORKERS = saved


def _blocks(start: int, stop: int, row_bytes: int, block_bytes: int) -> list[slice]:
    step = max(1, block_bytes // max(1, row_bytes))
    return [slice(at, min(at + step, stop)) for at in range(start, stop, step)]


def row_blocks(n_rows: int, row_length: int, itemsize: int) -> list[slice]:
    """Cache-sized blocks of rows, at least one row each."""
    return _blocks(0, n_rows, row_length * itemsize, ROW_BYTES)


def product_blocks(n_rows: int, row_length: int, itemsize: int) -> list[slice]:
    """Blocks of rows for the products, PRODUCT_BYTES each (at least one row)."""
    return _blocks(0, n_rows, row_length * itemsize, PRODUCT_BYTES)


def within(rows: slice, row_length: int, itemsize: int) -> list[slice]:
    """The cache-sized blocks of the rows ``rows`` (a block from product_blocks)."""
    return _blocks(rows.start, rows.stop, row_length * itemsize, ROW_BYTES)


def matmul_rows(A: np.ndarray, *Bs: np.ndarray) -> list[np.ndarray]:
    """[A @ B for B in Bs] (NumPy; A [..., m, k], each B [k, p]), A's rows in WORKERS parts, all
    the products' parts handed to every core at once, each part one BLAS call on one thread
    (blas_on_one_thread).

    The same products as BLAS's own threads would make, to float rounding (BLAS picks its
    kernels by a matrix's shape and its thread count: neither way is bit for bit the other's),
    but no BLAS thread is left behind: OpenBLAS's idle threads spin for some 0.1 s after a call
    they shared, and on a 2-core machine that spin took a core from the passes that follow (the
    fused pass ran 131-158 ms after a 2-thread X W_Q against 98-101 ms without it)."""
    rows = A.reshape(-1, A.shape[-1])
    Cs = [np.empty((rows.shape[0], B.shape[-1]), np.result_type(A, B)) for B in Bs]
    parts = _blocks(0, rows.shape[0], 1, -(-rows.shape[0] // WORKERS))  # WORKERS runs of rows

    def part_of(item) -> None:
        which, part = item
        np.matmul(rows[part], Bs[which], out=Cs[which][part])

    with blas_on_one_thread():
        each(part_of, [(which, part) for which in range(len(Bs)) for part in parts], PARALLEL_FROM)
    return [C.reshape(*A.shape[:-1], C.shape[-1]) for C in Cs]


def each(work, items, entries: int) -> None:
    """``work(item)`` for every item: on every core when the pass is large, else in this thread.

    On every core, the caller's thread and WORKERS - 1 pool threads take the next item in turn
    until none is left, so a core that another process holds up does fewer blocks, not the last
    ones. An exception in any item is raised here (after the other threads stop)."""
    items = list(items)
    if entries < PARALLEL_FROM or WORKERS == 1 or len(items) == 1:
        for item in items:
            work(item)
        return
    taken, lock, failed = iter(range(len(items))), threading.Lock(), []

    def drain() -> None:
        while not failed:
            with lock:
                index = next(taken, None)
            if index is None:
                return
            try:
                work(items[index])
            except BaseException as error:  # stop the others, raise it in the caller
                failed.append(error)

    helpers = [_pool.submit(drain) for _ in range(min(WORKERS, len(items)) - 1)]
    drain()
    for helper in helpers:  # one not yet started (the pool busy with another caller) never will
        if not helper.cancel():
            helper.result()
    if failed:
        raise failed[0]
