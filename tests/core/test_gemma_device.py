"""Gemma where its weights are (core/pretrained/gemma.py, ``model.to(xp)``): the same code on an
array library other than NumPy. array-api-strict stands in for CuPy here: it refuses a NumPy array
mixed into its arithmetic, and NumPy-only calls (fancy indexing, ``np.concatenate`` on its arrays,
in-place assignment through a list), so a pass that runs on it runs on any array-API library. On a
machine with a usable GPU the same tests run on CuPy too (tests/core/conftest.py)."""

import json
from dataclasses import replace
from pathlib import Path

import array_api_strict
import numpy as np
import pytest

import core
import core.backend as backend_module
import core.decoder as decoder_module

REFERENCE = json.loads(
    (Path(__file__).parent / "reference" / "gemma3_270m.json").read_text(encoding="utf-8")
)
PROMPTS = list(REFERENCE["prompts"])


@pytest.fixture(scope="module")
def on_device(gemma, device_xp):
    """The session's NumPy model with every weight moved to ``device_xp``."""
    return gemma.to(device_xp)


def _library(array) -> str:
    return type(array).__module__.partition(".")[0]


def test_every_weight_and_the_cache_stay_on_the_device_and_the_trace_comes_home(on_device):
    device = _library(on_device.E)
    assert device in ("array_api_strict", "cupy")
    for w in on_device.layers:  # every weight the model has (Gemma has no biases: None)
        weights = [getattr(w, name) for name in vars(w) if getattr(w, name) is not None]
        assert len(weights) >= 9 and {_library(W) for W in weights} == {device}
    trace = on_device.forward(on_device.encode("The cat sat on the"))
    step = on_device.forward([int(trace.logits[-1].argmax())], trace.cache)
    assert {_library(M) for M in step.cache.K + step.cache.V} == {device}
    assert step.cache.length == trace.cache.length + 1
    assert isinstance(step.logits, np.ndarray) and all(isinstance(A, np.ndarray) for A in step.A)
    assert step.cache.nbytes == sum(np.asarray(core.to_numpy(M)).nbytes for M in step.cache.K) * 2


@pytest.mark.parametrize("prompt", PROMPTS)
def test_greedy_text_with_the_cache_on_the_device_is_transformers_own(on_device, prompt):
    ref = REFERENCE["prompts"][prompt]
    trace = on_device.forward(ref["ids"])
    top_ids, top = np.array(ref["top_ids"]), np.array(ref["top_logits"])
    assert np.abs(np.take_along_axis(trace.logits, top_ids, axis=1) - top).max() <= 1e-3
    written = []
    for _ in range(len(ref["greedy"])):
        written.append(int(trace.logits[-1].argmax()))
        trace = on_device.forward([written[-1]], trace.cache)
    assert written == ref["greedy"]


def test_a_pass_with_residuals_and_heads_off_equals_numpys(gemma, on_device):
    ids = gemma.encode("注意力机制让模型在生成每个词时")
    off = frozenset({(0, 1), (5, 3), (17, 0)})
    here, there = (m.forward(ids, residuals=True, off=off) for m in (gemma, on_device))
    np.testing.assert_allclose(there.logits, here.logits, atol=2e-3, rtol=0)
    for A, A_here in zip(there.A, here.A, strict=True):
        np.testing.assert_allclose(A, A_here, atol=1e-5)
    # the stream's rows reach |x| ~ 500: float32 sums in another order (cuBLAS) move a small
    # entry beside such large ones by ~1e-5 of the largest (H200: 0.0019 where |x| ~ 3)
    for H, H_here in zip(there.H, here.H, strict=True):
        np.testing.assert_allclose(H, H_here, atol=1e-5 * np.abs(H_here).max(), rtol=1e-4)
    for (a, f), (a_here, f_here) in zip(there.added, here.added, strict=True):
        np.testing.assert_allclose(a, a_here, atol=1e-5 * np.abs(a_here).max(), rtol=1e-4)
        np.testing.assert_allclose(f, f_here, atol=1e-5 * np.abs(f_here).max(), rtol=1e-4)
    rows = here.H[9][-3:]  # host rows through the device's lens: the logit lens's own call
    np.testing.assert_allclose(on_device.lens(rows), gemma.lens(rows), atol=2e-3, rtol=0)


def test_several_sequences_stepped_at_once_on_the_device_equal_numpys_alone(gemma, on_device):
    prompts = [gemma.encode("The cat sat on the"), gemma.encode("今天天气很好，我们一起去")]
    caches = [on_device.forward(ids[:-1]).cache for ids in prompts]
    together = on_device.steps([ids[-1] for ids in prompts], caches)
    for ids, trace in zip(prompts, together, strict=True):
        alone = gemma.forward([ids[-1]], gemma.forward(ids[:-1]).cache)
        np.testing.assert_allclose(trace.logits, alone.logits, atol=2e-3, rtol=0)
        assert int(trace.logits.argmax()) == int(alone.logits.argmax())
        assert trace.cache.length == len(ids)
        assert _library(trace.cache.K[0]) == _library(on_device.E)


def test_the_app_loads_the_model_onto_a_usable_gpu(gemma, monkeypatch):
    """load_decoder puts the weights where core.active_backend() computes: array-api-strict
    playing a usable GPU here. (Gemma's registry row reads the session's model, already read,
    rather than reading the 1 GB again.)"""
    monkeypatch.delenv(backend_module.ENV_VAR, raising=False)
    monkeypatch.setattr(backend_module, "_try_cupy", lambda: (array_api_strict, None))
    row = decoder_module.MODELS["gemma3-270m"]
    monkeypatch.setitem(decoder_module.MODELS, row.name, replace(row, read=lambda paths: gemma))
    core.active_backend.cache_clear()
    core.load_decoder.cache_clear()
    try:
        model = core.load_decoder()
    finally:
        core.active_backend.cache_clear()
        core.load_decoder.cache_clear()
    assert _library(model.E) == "array_api_strict" and model.xp is array_api_strict
    assert _library(gemma.E) == "numpy"  # moved, not changed in place
