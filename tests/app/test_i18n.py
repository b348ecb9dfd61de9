"""Every visible string exists in English and Chinese; the Chinese pages show no stray English."""

import re
import string
from pathlib import Path

import pytest

from core.errors import MESSAGES
from tests.support import ROOT
from tests.support.app import PAGE_FILES, run_app
from ui.kit.i18n import ERRORS, LANGS, STRINGS, STRINGS_DIR, pick, t

SOURCES = [
    ROOT / "app.py",
    *sorted((ROOT / "pages").glob("*.py")),
    *sorted((ROOT / "ui").rglob("*.py")),
]


def _fields(text: str) -> set:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def _forms(entry: dict, lang: str) -> list[str]:
    """Every form of an entry in one language: the text, or each plural form."""
    text = entry[lang]
    return [text["one"], text["other"]] if isinstance(text, dict) else [text]


@pytest.mark.parametrize("key", sorted(STRINGS))
def test_every_string_has_every_language_with_the_same_placeholders(key):
    entry = STRINGS[key]
    assert set(entry) == set(LANGS), key
    fields = {frozenset(_fields(form)) for lang in LANGS for form in _forms(entry, lang)}
    assert all(form.strip() for lang in LANGS for form in _forms(entry, lang))
    assert len(fields) == 1, f"{key}: placeholders differ between languages or forms"
    for lang in LANGS:
        if isinstance(entry[lang], dict):  # plural forms: their count is one of the fields
            assert entry[lang]["count"] in next(iter(fields)), key


def test_every_error_code_is_translated():
    assert set(MESSAGES) <= set(ERRORS)
    for code, entry in ERRORS.items():
        assert set(entry) == set(LANGS), code
        assert _fields(entry["en"]) == _fields(entry["zh"]), code


def test_no_key_is_defined_in_two_files():
    import tomllib

    seen = {}
    for path in sorted(STRINGS_DIR.glob("*.toml")):
        for key in tomllib.loads(path.read_text("utf-8")):
            assert key not in seen, f"{key} in both {seen.get(key)} and {path.name}"
            seen[key] = path.name


def test_a_key_in_two_files_stops_the_app_at_start(tmp_path, monkeypatch):
    import pytest

    import ui.kit.i18n as i18n

    for name in ("a.toml", "b.toml"):
        (tmp_path / name).write_text('same = { en = "x", zh = "x" }\n', encoding="utf-8")
    monkeypatch.setattr(i18n, "STRINGS_DIR", tmp_path)
    with pytest.raises(KeyError, match="'same' is defined in a.toml and in b.toml"):
        i18n._strings()


def test_a_number_before_a_noun_takes_its_plural_form():
    assert t("tokens_line", "en", n=1) == "1 token" and t("tokens_line", "en", n=5) == "5 tokens"
    assert t("co_who", "en", n=1) == "1 learner" and t("co_who", "en", n=24) == "24 learners"
    assert t("tokens_line", "zh", n=1) == "1 个 token"
    assert pick(STRINGS["answer_wrong"], "en", {"bad": 1}).startswith("{bad} of {k} entries is")


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
    "transformer",
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
    "gemma",  # the generate page's model, and the names of its layer's parts
    "rope",
    "rmsnorm",
    "geglu",
    "gelu",
    "relu",
    "logit",
    "norm",  # QK-norm
    "down",  # W_down, W_gate
    "gate",
}


def _english_words(text: str) -> set:
    return {w for w in re.findall(r"[A-Za-z]{4,}", text) if w.lower() not in ALLOWED}


@pytest.mark.parametrize("page", list(PAGE_FILES))
def test_chinese_pages_show_no_untranslated_english(page):
    at = run_app(page, lang="zh")
    assert not at.exception
    kinds = ("title", "subheader", "markdown", "caption", "info", "success", "warning", "error")
    texts = [element.value for kind in kinds for element in getattr(at, kind)]
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
