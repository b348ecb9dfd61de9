"""Large NumPy arrays handed out again once nobody holds them.

Fresh memory from the kernel is zeroed page by page when first written: at n = 2048 (8 heads,
float32) each 128 MB field costs some 30 ms of kernel time per call, more than the softmax's
arithmetic on it. A caller that computes again (a benchmark's next round, the cost page's next
repeat, a learner's next sentence) has usually dropped the last call's arrays by then, so their
memory is handed out again instead of being given back to the kernel and faulted in anew.

``empty(shape, dtype)`` is ``np.empty`` for arrays under REUSE_FROM bytes. Larger ones come from a
pool of whole buffers: a view of a buffer of the same size that only the pool holds (its
reference count says so: any view a caller keeps holds the buffer), else a new buffer, which joins
the pool while the pool's buffers stay under KEEP_BYTES (free ones are dropped, oldest first, to
make room; past that the array is a plain one). So a trace a caller keeps is never written over,
and the pool never holds more than KEEP_BYTES. A measurement of the memory a call needs drops the
free buffers first (drop_free), so that it counts what the call allocates from nothing.
"""

import math
import sys
import threading

import numpy as np

REUSE_FROM = 4 * 2**20  # bytes: smaller arrays come from malloc, which reuses them itself
KEEP_BYTES = 512 * 2**20  # the pool's buffers, free or in use, stay under this

_buffers: list[np.ndarray] = []  # uint8 arrays, oldest first
_lock = threading.Lock()


def _free(index: int) -> bool:
    """Whether only the pool holds buffer ``index`` (its list and getrefcount's argument)."""
    return sys.getrefcount(_buffers[index]) == 2


def empty(shape, dtype) -> np.ndarray:
    """An uninitialised array of ``shape`` and ``dtype``, like np.empty, C-contiguous."""
    dtype = np.dtype(dtype)
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes < REUSE_FROM:
        return np.empty(shape, dtype)
    with _lock:  # a buffer is taken (a view made) before another thread can look at it
        for index in range(len(_buffers)):
            if _buffers[index].nbytes == nbytes and _free(index):
                return _buffers[index].view(dtype).reshape(shape)
        kept = sum(buffer.nbytes for buffer in _buffers)
        index = 0
        while kept + nbytes > KEEP_BYTES and index < len(_buffers):
            if _free(index):
                kept -= _buffers.pop(index).nbytes
            else:
                index += 1
        if kept + nbytes > KEEP_BYTES:
            return np.empty(shape, dtype)
        _buffers.append(np.empty(nbytes, np.uint8))
        return _buffers[-1].view(dtype).reshape(shape)


def held_bytes() -> int:
    """Bytes in the pool's buffers, free or in use."""
    with _lock:
        return sum(buffer.nbytes for buffer in _buffers)


def drop_free() -> int:
    """Give the free buffers back (to malloc, and so to the kernel); the bytes given back."""
    with _lock:
        free = [index for index in range(len(_buffers)) if _free(index)]
        dropped = sum(_buffers[index].nbytes for index in free)
        for index in reversed(free):
            del _buffers[index]
        return dropped
