"""The C heap under the server (glibc's malloc): how many arenas its threads share, and its freed
pages handed back to the system. Each script thread that allocates at once may get an arena of
its own (up to 8 per core), and the memory freed in each stays resident there; a class's sixty
sessions and the model's passes leave it spread over many. Elsewhere (not glibc) both do nothing.
"""

import ctypes
import ctypes.util

M_ARENA_MAX = -8  # mallopt's parameter (malloc.h)


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


def give_back() -> None:
    """Hand the heap's freed pages back to the system (malloc_trim)."""
    if LIBC is not None:
        LIBC.malloc_trim(0)
