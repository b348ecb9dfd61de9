"""Backend choice (NumPy, CuPy), its stated reason, and CuPy against NumPy on a GPU."""

import numpy as np
import pytest

import core
from core.backend import ENV_VAR


@pytest.fixture
def fresh_backend(monkeypatch):
    core.active_backend.cache_clear()
    yield monkeypatch
    core.active_backend.cache_clear()


def test_forcing_numpy(fresh_backend):
    fresh_backend.setenv(ENV_VAR, "numpy")
    chosen = core.active_backend()
    assert chosen.name == "numpy" and ENV_VAR in chosen.reason


def test_default_names_a_backend_and_a_reason(fresh_backend):
    fresh_backend.delenv(ENV_VAR, raising=False)
    chosen = core.active_backend()
    assert chosen.name in ("numpy", "cupy") and chosen.reason
    assert chosen.name in str(chosen)


def test_asking_for_cupy_without_it_falls_back_and_says_why(fresh_backend):
    try:
        import cupy  # noqa: F401

        pytest.skip("CuPy is installed here; the fallback cannot be shown")
    except ImportError:
        pass
    fresh_backend.setenv(ENV_VAR, "cupy")
    chosen = core.active_backend()
    assert chosen.name == "numpy" and "CuPy" in chosen.reason


def test_to_numpy_accepts_every_backend():
    import array_api_strict as xps

    np.testing.assert_array_equal(core.to_numpy(xps.asarray([1.0, 2.0])), [1.0, 2.0])
    assert core.to_numpy(None) is None


@pytest.mark.gpu
def test_cupy_matches_numpy(fresh_backend):
    cupy = pytest.importorskip("cupy")
    try:
        cupy.zeros(1).sum()
    except Exception as error:  # no driver or no device
        pytest.skip(f"no usable GPU: {error}")
    config = core.AttentionConfig(d_model=64, n_heads=4, dtype="float32")
    tokens = [f"t{i}" for i in range(40)]
    fresh_backend.setenv(ENV_VAR, "numpy")
    X, W = core.embed(tokens, 64, dtype="float32"), core.init_weights(config)
    expected = core.attention(X, W, 4, mask=core.causal_mask(40))
    core.active_backend.cache_clear()
    fresh_backend.setenv(ENV_VAR, "cupy")
    assert core.active_backend().name == "cupy"
    X, W = core.embed(tokens, 64, dtype="float32"), core.init_weights(config)
    got = core.attention(X, W, 4, mask=core.causal_mask(40))
    assert type(got.output).__module__.startswith("cupy")
    for name in ("S", "A", "output"):
        np.testing.assert_allclose(
            core.to_numpy(getattr(got, name)), getattr(expected, name), atol=1e-5, rtol=1e-5
        )


def test_short_sequences_stay_on_the_cpu(gpu_stand_in):
    assert core.active_backend().name == "cupy"
    short = core.active_backend(gpu_stand_in - 1)
    assert short.name == "numpy" and str(gpu_stand_in) in short.reason
    assert core.active_backend(gpu_stand_in).name == "cupy"
    assert isinstance(core.embed(["a", "b"], 4), np.ndarray)
    assert isinstance(core.causal_mask(3), np.ndarray)
    config = core.AttentionConfig(d_model=4, n_heads=2)
    assert isinstance(core.init_weights(config, n=2).W_Q, np.ndarray)
    assert not isinstance(core.init_weights(config, n=gpu_stand_in).W_Q, np.ndarray)
    long = core.embed([f"t{i}" for i in range(gpu_stand_in)], 4)
    assert not isinstance(long, np.ndarray) and type(long).__module__.startswith("array_api_strict")


def test_forcing_cupy_keeps_short_sequences_on_it(gpu_stand_in, fresh_backend):
    fresh_backend.setenv(ENV_VAR, "cupy")
    assert core.active_backend(2).name == "cupy"
    assert not isinstance(core.embed(["a", "b"], 4), np.ndarray)


def test_attention_runs_where_X_is(gpu_stand_in):
    """Weights made on 'the GPU' and a short X on the CPU: the numbers come out on the CPU, equal
    to an all-NumPy run, and a long X keeps them on 'the GPU'."""
    config = core.AttentionConfig(d_model=8, n_heads=2)
    W = core.init_weights(config)  # made by the best backend: the stand-in GPU
    assert not isinstance(W.W_Q, np.ndarray)
    host_W = core.Weights(**{name: core.to_numpy(M) for name, M in vars(W).items()})
    X = core.embed(["a", "b", "c"], 8)
    got = core.attention(X, W, 2, mask=core.causal_mask(3))
    expected = core.attention(X, host_W, 2, mask=np.tril(np.ones((3, 3), bool)))
    assert isinstance(got.output, np.ndarray)
    np.testing.assert_array_equal(got.A, expected.A)
    np.testing.assert_array_equal(got.output, expected.output)
    loop = core.attention_loop(X, W, 2, mask=core.causal_mask(3))
    np.testing.assert_allclose(loop.output, expected.output, atol=1e-12)
    np.testing.assert_allclose(core.decode_incremental(X, W, 2), got.output, atol=1e-12)
    X_far = core.active_backend(gpu_stand_in).xp.asarray(X)
    assert not isinstance(core.attention(X_far, host_W, 2).output, np.ndarray)
    assert W.like(X_far) is W
    assert W.like(X) is W.like(X)  # copied to the CPU once, not on every call
