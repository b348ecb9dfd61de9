"""Backends the core tests run on: NumPy, array-api-strict to catch NumPy-only calls, and CuPy
where a GPU is usable."""

import pytest

import core


def _namespaces():
    import array_api_compat.numpy as xp_numpy
    import array_api_strict

    found = {"numpy": xp_numpy, "strict": array_api_strict}
    xp_cupy, _ = core.backend._try_cupy()  # the backend's own probe
    if xp_cupy is not None:  # on a GPU machine every core test also runs on CuPy
        found["cupy"] = xp_cupy
    return found


@pytest.fixture(params=list(_namespaces()), scope="session")
def xp(request):
    return _namespaces()[request.param]


@pytest.fixture(params=[name for name in _namespaces() if name != "numpy"], scope="session")
def device_xp(request):
    """The array libraries other than NumPy: array-api-strict standing in for a GPU, and CuPy
    where one is usable."""
    return _namespaces()[request.param]
