"""The trained decoders (core/pretrained/decoder.py, one decoder configured by each model's facts),
each a row of core/pretrained/registry.py (Gemma 3 270M and SmolLM2-135M), loaded once per process
from its packages where pip put them, shared by every session.

    core.decoder_names()                   # ("gemma3-270m", "smollm2-135m"): those installed
    model = core.load_decoder()            # Gemma 3 270M; load_decoder("smollm2-135m") beside it
    ids = model.encode("猫坐在")             # [2, 236816, 51153]: <bos>, 猫, 坐在 (SmolLM2: none)
    trace = model.forward(ids)             # logits [n, vocab], every layer's A [h, n, n], the cache
    step = model.forward([next_id], trace.cache)   # only the new row, reading the cached K and V

A model whose packages are absent is InputError "model_missing", with the pip line.
"""

import threading
from functools import lru_cache
from importlib import import_module
from pathlib import Path

from core.backend import active_backend
from core.errors import InputError
from core.pretrained.gguf_file import GGUFFile
from core.pretrained.registry import MODELS, Model  # noqa: F401 (the registry's callers)
from core.pretrained.registry import entry as decoder_entry  # noqa: F401 (core's API)


def _paths(name: str) -> list[Path]:
    """``name``'s GGUF files, or InputError "model_missing" with its pip line."""
    model = MODELS[name]
    try:
        import_module("gguf.quants")  # llama.cpp's dequantiser (and the PyYAML it imports)
        paths = model.find(model.package)
    except ImportError:
        paths = []
    if not paths or not all(path.exists() for path in paths):
        raise InputError("model_missing", package=model.package, hint=model.install)
    return paths


def decoder_names() -> tuple[str, ...]:
    """The decoders installed here, Gemma first."""
    names = []
    for name in MODELS:
        try:
            _paths(name)
        except InputError:
            continue
        names.append(name)
    return tuple(names)


SMALL = 64  # metadata values kept for the facts: the scalars and short lists, not the vocabulary


@lru_cache(maxsize=4)
def _facts_meta(name: str) -> dict:
    """``name``'s GGUF metadata without its long lists (the vocabulary, the merges: Gemma's
    262,144 pieces held as Python strings cost a class's server about 100 MB)."""
    meta = GGUFFile(_paths(name)).meta
    return {k: v for k, v in meta.items() if not isinstance(v, list | tuple) or len(v) <= SMALL}


_header_lock = threading.Lock()  # one header read at a time: several pages asking at once wait
# for the first's instead of each parsing it (lru_cache alone lets each of them build it)


def decoder_facts(name: str):
    """``name``'s DecoderConfig from its GGUF's metadata, without reading its weights (a page
    that compares the models' heads and caches loads neither)."""
    with _header_lock:
        return _facts(name)


@lru_cache(maxsize=4)
def _facts(name: str):
    return MODELS[name].facts(_facts_meta(name))


def decoder_tokenizer(name: str):
    """``name``'s tokenizer from its GGUF's metadata, without reading its weights (SmolLM2's; a
    model whose tokenizer needs more: its loaded model's), made once per process."""
    if MODELS[name].tokenizer is None:
        return load_decoder(name).tokenizer
    with _header_lock:
        return _tokenizer(name)


@lru_cache(maxsize=4)
def _tokenizer(name: str):
    return MODELS[name].tokenizer(GGUFFile(_paths(name)).meta)


def first_decoder() -> str:
    """The registry's first model (Gemma): the one the pages open on."""
    return next(iter(MODELS))


def load_decoder(name: str | None = None):
    """The decoder ``name`` (a key of MODELS; None: the first), read from its installed files
    where they lie (never assembled; its float32 weights mapped from the file that an earlier
    load left, core/pretrained/float_cache.py), its weights on the backend that computes:
    CuPy's GPU where one is usable, else NumPy. (GPU_FROM_N does not apply: it is the
    walkthrough's tiny layer's crossover; the decoder's GPU timings are bench/gpu_check.sh's.)
    Once per process and name."""
    return _load(first_decoder() if name is None else name)


load_decoder.cache_clear = lambda: _load.cache_clear()  # (the tests' and benches' fresh loads)


@lru_cache(maxsize=2)
def _load(name: str):
    if name not in MODELS:
        raise InputError("unknown_model", name=name, models=", ".join(MODELS))
    model = MODELS[name].read(_paths(name))
    model.name = name
    return model.to(active_backend().xp)
