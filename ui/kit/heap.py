"""The C heap under the server (glibc's malloc): how many arenas its threads share, and its freed
pages handed back to the system. Each script thread that allocates at once may get an arena of
its own (up to 8 per core), and the memory freed in each stays resident there; a class's sixty
sessions and the model's passes leave it spread over many. Elsewhere (not glibc) both do nothing.
"""

import ctypes
import ctypes.util
import threading
from contextlib import contextmanager

M_ARENA_MAX = -8  # mallopt's parameters (malloc.h)
M_MMAP_THRESHOLD = -3
M_TRIM_THRESHOLD = -1
TRIM_DEFAULT = 128 << 10  # glibc's, which a set mmap threshold keeps from growing
PASS_MAP_FROM = 32 << 20  # glibc's largest mmap threshold: a model pass's temporaries under it


def _libc():
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        return libc if hasattr(libc, "malloc_trim") and hasattr(libc, "mallopt") else None
    except (OSError, TypeError):
        return None


LIBC = _libc()


def limit_arenas(most: int) -> bool:
    """At most ``most`` arenas from now on (before the threads start allocating); True if set."""
    return bool(LIBC is not None and LIBC.mallopt(M_ARENA_MAX, most))


_mapped_from: int | None = None  # what map_from set last (None: glibc's own, moving bar)


def map_from(size: int) -> bool:
    """Every allocation of ``size`` bytes or more mapped on its own, and unmapped when freed; True
    if set. glibc's default raises this bar to the largest block freed so far (up to 32 MB), so
    after a model's first [32, 262 144] logits, the next ones came from the heap, and what was
    freed there stayed resident under the next pass's arrays."""
    global _mapped_from
    done = bool(LIBC is not None and LIBC.mallopt(M_MMAP_THRESHOLD, size))
    if done:
        _mapped_from = size
    return done


def trim_from(size: int) -> bool:
    """Keep up to ``size`` bytes freed at a heap's top before handing them back (glibc trims from
    128 kB: a loop that allocates and frees a few hundred kB each time had its pages handed back
    and faulted in again every round); True if set."""
    return bool(LIBC is not None and LIBC.mallopt(M_TRIM_THRESHOLD, size))


@contextmanager
def reused(size: int = 16 << 20):
    """Freed memory kept for reuse (``trim_from(size)``) while the block runs; after it, the
    default again and the freed pages handed back (``give_back``)."""
    trim_from(size)
    try:
        yield
    finally:
        trim_from(TRIM_DEFAULT)
        give_back()


_passes = 0  # model passes running now (at most one per core)
_passes_lock = threading.Lock()


@contextmanager
def for_passes():
    """While any model pass runs (ui/work/model_turns.py: every turn at the model): allocations
    under PASS_MAP_FROM come from the heap, and what is freed there stays for the next of the
    pass's arrays; after the last pass, the bar ``map_from`` had set again. With every megabyte
    mapped on its own (the server's 1 MB, process.py), each of a 512-token prefill's temporaries
    ([512, 640] float32: 1.3 MB, a few dozen a layer) was mapped, faulted in page by page and
    unmapped: Gemma's prefill took 1.3-1.7 times as long, SmolLM2's 1.3-1.5 (bench/served_heap.py,
    bench/results/issue67_round2.txt). Nothing changes where ``map_from`` was never called
    (glibc's own bar moves by itself)."""
    global _passes
    served = _mapped_from
    if served is None or served >= PASS_MAP_FROM:
        yield
        return
    with _passes_lock:
        _passes += 1
        if _passes == 1:
            LIBC.mallopt(M_MMAP_THRESHOLD, PASS_MAP_FROM)
            trim_from(PASS_MAP_FROM)
    try:
        yield
    finally:
        with _passes_lock:
            _passes -= 1
            if _passes == 0:  # (no malloc_trim here: walking the heap after every written
                # token cost Gemma's step 20-50 ms; glibc trims its tops by itself from here)
                LIBC.mallopt(M_MMAP_THRESHOLD, served)
                trim_from(TRIM_DEFAULT)


def give_back() -> None:
    """Hand the heap's freed pages back to the system (malloc_trim)."""
    if LIBC is not None:
        LIBC.malloc_trim(0)
