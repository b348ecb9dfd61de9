"""Which array library computes the numbers: NumPy, or CuPy when a GPU is usable."""

import os
import sys
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from array_api_compat import array_namespace

ENV_VAR = "SELF_ATTENTION_BACKEND"  # "numpy" or "cupy" forces that backend

# Below this many tokens the CPU is faster than the GPU, so a shorter sentence stays on NumPy even
# where CuPy works: launching the dozens of small kernels of one trace and copying the numbers back
# cost more than the arithmetic. The measured crossover: bench/results/gpu_crossover.md.
GPU_FROM_N = 512


@dataclass(frozen=True)
class Backend:
    name: str  # "numpy" or "cupy"
    reason: str  # why this backend was chosen, in plain words
    xp: object  # the array namespace (array-api-compat wrapped)

    def __str__(self) -> str:
        return f"{self.name} ({self.reason})"


def _try_cupy():
    """Return (cupy namespace, None) when CuPy imports and a GPU answers, else (None, why not)."""
    try:
        import cupy

        cupy.cuda.runtime.getDeviceCount()
        cupy.zeros(1).sum()  # a real kernel launch, not just an import
    except Exception as error:  # ImportError, CUDARuntimeError, missing driver, ...
        return None, f"CuPy unusable: {type(error).__name__}: {error}".strip()
    import array_api_compat.cupy as xp_cupy

    return xp_cupy, None


def active_backend(n: int | None = None) -> Backend:
    """The backend that computes, and why: CuPy when it imports and a GPU is usable, else NumPy.

    With ``n`` (the number of tokens) a sequence shorter than GPU_FROM_N stays on NumPy, where it
    is faster, unless CuPy was forced with SELF_ATTENTION_BACKEND=cupy.
    """
    best = _best_backend()
    forced = os.environ.get(ENV_VAR, "").strip().lower() == "cupy"
    if n is None or best.name != "cupy" or forced or n >= GPU_FROM_N:
        return best
    import array_api_compat.numpy as xp_numpy

    return Backend(
        "numpy", f"n = {n} < {GPU_FROM_N}: the CPU is faster for short sequences", xp_numpy
    )


@lru_cache(maxsize=1)
def _best_backend() -> Backend:
    import array_api_compat.numpy as xp_numpy

    forced = os.environ.get(ENV_VAR, "").strip().lower()
    if forced == "numpy":
        return Backend("numpy", f"forced by {ENV_VAR}=numpy", xp_numpy)
    xp_cupy, why_not = _try_cupy()
    if xp_cupy is not None:
        reason = f"forced by {ENV_VAR}=cupy" if forced == "cupy" else "CuPy found a usable GPU"
        return Backend("cupy", reason, xp_cupy)
    if forced == "cupy":
        return Backend("numpy", f"{ENV_VAR}=cupy asked for CuPy, but {why_not}", xp_numpy)
    return Backend("numpy", f"default; {why_not}", xp_numpy)


active_backend.cache_clear = _best_backend.cache_clear  # tests and benchmarks switch backends


def asarray(host_array: np.ndarray, n: int | None = None):
    """Move a NumPy array to the backend that computes sequences of n tokens (see backend)."""
    return active_backend(n).xp.asarray(host_array)


def like(array, reference):
    """``array`` in the same library as ``reference`` (NumPy, CuPy, ...), copied only if needed."""
    if array is None or same_library(array, reference):
        return array
    host = to_numpy(array)
    return host if isinstance(reference, np.ndarray) else array_namespace(reference).asarray(host)


def same_library(array, reference) -> bool:
    """Whether both arrays belong to one array library (both NumPy, both CuPy, ...)."""
    return type(array).__module__.partition(".")[0] == type(reference).__module__.partition(".")[0]


PINNED_FROM = 1 << 26  # bytes: a larger device array comes to the host through pinned memory


def _through_pinned(array) -> np.ndarray:
    """A large CuPy array on the host at the bus's speed: copied into page-locked memory from
    CuPy's pool (which keeps it for the next such copy once the NumPy array returned, its only
    holder, is gone), instead of through pageable memory touched for the first time. Gemma's
    logits for a prompt of 512 tokens are 0.5 GB."""
    cupy = sys.modules[type(array).__module__.split(".")[0]]
    memory = cupy.cuda.alloc_pinned_memory(array.nbytes)
    host = np.frombuffer(memory, dtype=array.dtype, count=array.size).reshape(array.shape)
    array.get(out=host)
    return host


def to_numpy(array) -> np.ndarray:
    """Bring an array of any backend (NumPy, CuPy, array-api-strict) to the host as NumPy."""
    if array is None or isinstance(array, np.ndarray):
        return array
    if hasattr(array, "get") and type(array).__module__.startswith("cupy"):
        return _through_pinned(array) if array.nbytes >= PINNED_FROM else array.get()
    return np.from_dlpack(array) if hasattr(array, "__dlpack__") else np.asarray(array)
