"""Every visible string exists in English and Chinese; the Chinese pages show no stray English."""

import re
import string
from pathlib import Path

import pytest

from core.errors import MESSAGES
from tests.app.helpers import PAGE_FILES, run_app
from tests.conftest import ROOT
from ui.i18n import ERRORS, STRINGS

SOURCES = [
    ROOT / "app.py",
    *sorted((ROOT / "pages").glob("*.py")),
    *sorted((ROOT / "ui").glob("*.py")),
]


def _fields(text: str) -> set:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("key", sorted(STRINGS))
def test_every_string_has_both_languages_with_the_same_placeholders(key):
    english, chinese = STRINGS[key]
    assert english.strip() and chinese.strip()
    assert _fields(english) == _fields(chinese), key


def test_every_error_code_is_translated():
    assert set(MESSAGES) <= set(ERRORS)
    for code, (english, chinese) in ERRORS.items():
        assert _fields(english) == _fields(chinese), code


def test_every_key_the_code_asks_for_exists():
    used = set()
    for path in SOURCES:
        text = Path(path).read_text(encoding="utf-8")
        used |= set(re.findall(r"\bt\(\s*\"([a-z_0-9]+)\"", text))
        used |= {
            f"{prefix}_{code}"
            for prefix in re.findall(r"labeller\(\"([a-z]+)\"\)", text)
            for code in ("auto", "space", "char", "jieba", "none", "causal", "padding", "both")
            if f"{prefix}_{code}" in STRINGS
        }
    missing = sorted(key for key in used if key not in STRINGS)
    assert not missing, f"keys used but not defined: {missing}"


# Words allowed on a Chinese page: terms learners meet in textbooks, symbols and library names.
ALLOWED = {
    "softmax",
    "token",
    "tokens",
    "query",
    "key",
    "value",
    "concat",
    "multihead",
    "numpy",
    "cupy",
    "jieba",
    "python",
    "english",
    "language",
    "nats",
    "cache",
    "score",
    "heads",
    "head",
    "mask",
    "output",
    "wrong",
    "right",
    "loop",
    "matrix",
    "step",
    "the",
    "movie",
    "was",
    "really",
    "good",
    "love",
    "you",
    "dog",
    "bites",
    "man",
    "great",
    "transpose",
    "reshape",
    "axis",
    "scale",
    "sin",
    "cos",
    "tanh",
    "pad",
    "bdata",
    "dtype",
    "shape",
    "exp",
    "max",
    "var",
    "model",
    "diag",
    "float",
    "flashattention",
    "tracemalloc",
    "bert",
    "layernorm",
    "minilm",
    "multilingual",  # the name multilingual-e5-small
    "small",
    "nvidia",  # the GPU's maker, in the name of the machine the GPU timings were recorded on
    "bench",  # the script bench/gpu_timing.py that recorded them
    "timing",
    "core",  # the file core/reference.py, whose lines the pages show
    "reference",
}


def _english_words(text: str) -> set:
    return {w for w in re.findall(r"[A-Za-z]{4,}", text) if w.lower() not in ALLOWED}


@pytest.mark.parametrize("page", list(PAGE_FILES))
def test_chinese_pages_show_no_untranslated_english(page):
    at = run_app(page, lang="zh")
    assert not at.exception
    kinds = ("title", "subheader", "markdown", "caption", "info", "success", "warning", "error")
    texts = [element.value for kind in kinds for element in getattr(at, kind)]
    texts = [text for text in texts if not text.startswith("<pre")]  # Python code, as it runs
    texts += [
        w.label
        for kind in (
            "selectbox",
            "slider",
            "select_slider",
            "radio",
            "toggle",
            "text_input",
            "number_input",
            "button",
            "text_area",
        )
        for w in getattr(at, kind)
    ]
    texts += [e.label for e in at.expander]
    stray = set().union(*(_english_words(text) for text in texts))
    assert not stray, f"English on the Chinese {page} page: {sorted(stray)}"
