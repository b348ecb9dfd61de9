"""Shared by every test: the repository's root, and a stand-in GPU backend. (pytest puts the
repository on the path: pyproject.toml's pythonpath.)"""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def gpu_stand_in(monkeypatch):
    """CuPy's place taken by array-api-strict: 'a GPU' whose arrays are not NumPy's, so the
    placement rules (short sequences on the CPU, the computation where X is) can be checked on a
    machine without one. Returns GPU_FROM_N."""
    import array_api_strict

    import core
    import core.backend as backend_module

    monkeypatch.delenv(backend_module.ENV_VAR, raising=False)
    monkeypatch.setattr(backend_module, "_try_cupy", lambda: (array_api_strict, None))
    core.active_backend.cache_clear()
    yield backend_module.GPU_FROM_N
    core.active_backend.cache_clear()


def _decoder(name: str):
    import os

    import array_api_compat.numpy as xp_numpy

    import core

    try:
        return core.load_decoder(name).to(xp_numpy)
    except core.InputError as error:
        if os.environ.get("CI"):
            pytest.fail(f"CI installs the model's packages (requirements-models.txt): {error}")
        pytest.skip(str(error))


@pytest.fixture(scope="session")
def smollm2():
    """SmolLM2-135M, loaded once for the whole test session (about 1.5 s), on the host."""
    return _decoder("smollm2-135m")


@pytest.fixture(scope="session")
def gemma():
    """Gemma 3 270M, loaded once for the whole test session (about 5 s and 1.1 GB), on the host
    (NumPy) even where a GPU is usable: the tests recompute its numbers with NumPy beside it."""
    import os

    import array_api_compat.numpy as xp_numpy

    import core

    try:
        return core.load_decoder().to(xp_numpy)
    except core.InputError as error:
        if os.environ.get("CI"):
            pytest.fail(f"CI installs the model's packages (requirements-models.txt): {error}")
        pytest.skip(str(error))
