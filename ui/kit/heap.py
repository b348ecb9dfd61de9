"""The C heap under the server (glibc's malloc): how many arenas its threads share, and its freed
pages handed back to the system. Each script thread that allocates at once may get an arena of
its own (up to 8 per core), and the memory freed in each stays resident there; a class's sixty
sessions and the model's passes leave it spread over many. Elsewhere (not glibc) both do nothing.
"""

import ctypes
import ctypes.util
from contextlib import contextmanager

M_ARENA_MAX = -8  # mallopt's parameters (malloc.h)
M_MMAP_THRESHOLD = -3
M_TRIM_THRESHOLD = -1
TRIM_DEFAULT = 128 << 10  # glibc's, which a set mmap threshold keeps from growing


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


def map_from(size: int) -> bool:
    """Every allocation of ``size`` bytes or more mapped on its own, and unmapped when freed; True
    if set. glibc's default raises this bar to the largest block freed so far (up to 32 MB), so
    after a model's first [32, 262 144] logits, the next ones came from the heap, and what was
    freed there stayed resident under the next pass's arrays."""
    return bool(LIBC is not None and LIBC.mallopt(M_MMAP_THRESHOLD, size))


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


def give_back() -> None:
    """Hand the heap's freed pages back to the system (malloc_trim)."""
    if LIBC is not None:
        LIBC.malloc_trim(0)
