"""Every visible string exists in English and Chinese; the Chinese pages show no stray English."""

import re
import string
from pathlib import Path

import pytest

from core.errors import MESSAGES
from tests.support import ROOT
from tests.support.app import PAGE_FILES, run_app
from ui.kit.i18n import ERRORS, LANGS, STRINGS, pick, t
from ui.shell.registry import SCRIPTS

SOURCES = [
    ROOT / "app.py",
    *sorted((ROOT / SCRIPTS).glob("*.py")),
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


def test_keys_are_named_by_their_file_and_a_duplicate_stops_the_app(tmp_path, monkeypatch):
    import tomllib

    import pytest

    import ui.kit.i18n as i18n

    for name in ("a.toml", "b.toml"):  # the same key in two files: two keys, a.same and b.same
        (tmp_path / name).write_text('[same]\nen = "x"\nzh = "x"\n', encoding="utf-8")
    monkeypatch.setattr(i18n, "STRINGS_DIR", tmp_path)
    assert set(i18n._strings()) == {"a.same", "b.same"}
    (tmp_path / "a.toml").write_text('[same]\nen = "x"\n\n[same]\nen = "y"\n', encoding="utf-8")
    with pytest.raises(tomllib.TOMLDecodeError):  # the same key twice in one file: no app
        i18n._strings()


def test_a_number_before_a_noun_takes_its_plural_form():
    assert (
        t("shell.tokens_line", "en", n=1) == "1 token"
        and t("shell.tokens_line", "en", n=5) == "5 tokens"
    )
    assert t("cost.who", "en", n=1) == "1 learner" and t("cost.who", "en", n=24) == "24 learners"
    assert t("shell.tokens_line", "zh", n=1) == "1 个 token"
    assert pick(STRINGS["hand_check.answer_wrong"], "en", {"bad": 1}).startswith(
        "{bad} of {k} entries is"
    )


def test_every_key_the_code_asks_for_exists():
    used = set()
    for path in SOURCES:
        text = Path(path).read_text(encoding="utf-8")
        used |= set(re.findall(r"\bt\(\s*\"([A-Za-z_0-9.]+)\"", text))
        for prefix in re.findall(r"labeller\(\"([a-z_.]+)\"\)", text):
            assert any(key.startswith(prefix) for key in STRINGS), prefix
    assert used, "no t(...) call found: the sources moved?"
    unnamed = sorted(key for key in used if "." not in key)
    assert not unnamed, f"keys without their file's name: {unnamed}"
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
    "smollm",  # the second decoder, SmolLM2-135M, and the models its way of sharing K and V is
    "llama",  # named after
    "qwen",
    "sentencepiece",  # the two tokenizers' kinds (BPE: three letters, below this test's four)
    # the sidebar's accessibility statement: its standard, keys, tools and Streamlit's issues
    *("wcag", "shift", "enter", "streamlit", "chromium", "html", "lang", "accessibility"),
}


def _english_words(text: str) -> set:
    """Latin words of four letters or more outside Chinese quotation marks: a text quoted “…” is
    the model's or the learner's (the inside page's “montagne”), not the page's own words."""
    text = re.sub(r"“[^”]*”", " ", text)
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


def test_switching_the_language_redraws_every_label_in_that_run_and_back():
    """The language a run settles on (ui/kit/i18n.py remembers it for the run) is the switch's
    new value from the very run the switch is pressed in, and the next run's after a switch."""
    at = run_app(lang="en")
    assert at.title[0].value == t("shell.app_title", "en")
    for lang in ("zh", "en", "zh"):
        at.button_group(key="lang").set_value(lang).run()
        assert not at.exception
        assert at.title[0].value == t("shell.app_title", lang)
        assert at.slider(key="decimals").label == t("shell.decimals", lang)
        assert at.button(key="next_step").label == t("walkthrough.next", lang)
