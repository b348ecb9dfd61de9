"""Which array library computes the numbers: NumPy, or CuPy when a GPU is usable."""

import os
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

ENV_VAR = "SELF_ATTENTION_BACKEND"  # "numpy" or "cupy" forces that backend


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


@lru_cache(maxsize=1)
def backend() -> Backend:
    """The backend in use and why: NumPy by default, CuPy when it imports and a GPU is usable."""
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


def asarray(host_array: np.ndarray):
    """Move a NumPy array to the backend in use."""
    return backend().xp.asarray(host_array)


def to_numpy(array) -> np.ndarray:
    """Bring an array of any backend (NumPy, CuPy, array-api-strict) to the host as NumPy."""
    if array is None or isinstance(array, np.ndarray):
        return array
    if hasattr(array, "get") and type(array).__module__.startswith("cupy"):
        return array.get()
    return np.from_dlpack(array) if hasattr(array, "__dlpack__") else np.asarray(array)
