"""Every visible string in English and Chinese, and the learner-facing text of each InputError.

The strings live in assets/strings/ as data (README: "Translating"); t() looks them up.
"""

import math
import re
import threading
import tomllib
from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from core.lessons.number_text import power_of_ten

LANGS = ("en", "zh")
LANG_NAMES = {"en": "English", "zh": "中文"}
DEFAULT_SENTENCE = {"en": "the movie was really good", "zh": "这 部 电影 很 好看"}
DEFAULT_BATCH = {
    "en": "the movie was really good\nI love you\ngreat",
    "zh": "这 部 电影 很 好看\n我 喜欢 你\n好看",
}

STRINGS_DIR = Path(__file__).resolve().parents[2] / "assets" / "strings"


def _load(path: Path) -> dict:
    with path.open("rb") as file:
        return tomllib.load(file)


def _strings() -> dict:
    """ "file.key" -> {language code: text, or {"count", "one", "other"} for plural forms}, from
    one TOML file per page group (assets/strings/*.toml; errors.toml holds what each InputError
    code says): t("cost.fit") is the key [fit] of cost.toml. A key written twice in one file
    stops the app here (TOML refuses it), and two files cannot share a key's full name."""
    return {
        f"{path.stem}.{key}": entry
        for path in sorted(STRINGS_DIR.glob("*.toml"))
        if path.stem != "errors"
        for key, entry in _load(path).items()
    }


STRINGS = _strings()
ERRORS = _load(STRINGS_DIR / "errors.toml")


_settled = threading.local()  # .run: (the cursors of the run that settled, its language)


def settle_lang(lang: str) -> None:
    """The language switch has drawn: ``lang`` holds for the rest of this run (a widget's value
    cannot change after it is drawn), so current_lang() need not ask the session state again.
    A page's text asks some 150 times a run, each time through the session state's lock."""
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is not None:
        _settled.run = (ctx.cursors, lang)


def current_lang() -> str:
    ctx = get_script_run_ctx(suppress_warning=True)
    settled = getattr(_settled, "run", None)
    if ctx is not None and settled is not None and settled[0] is ctx.cursors:  # this run's:
        return settled[1]  # each run (a fragment's too) starts with cursors of its own
    lang = st.session_state.get("lang")
    return lang if lang in LANGS else "en"


def pick(entry: dict, lang: str, params: dict) -> str:
    """An entry's text in ``lang``: its plural form for the count parameter where it has them."""
    text = entry[lang]
    if isinstance(text, dict):  # {"count": "n", "one": ..., "other": ...}
        text = text["one"] if params.get(text["count"]) == 1 else text["other"]
    return text


HAN = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"  # Chinese characters and full-width punctuation
# a space between Chinese and a placeholder ("直到 {top1} 之后"), kept before a number or a Latin
# word ("层 17"), dropped where the value begins (or ends) in Chinese too ("直到层 17 之后")
_SPACE_BEFORE = re.compile(f"(?<=[{HAN}]) (\\{{(\\w+)\\}})")
_SPACE_AFTER = re.compile(f"(\\{{(\\w+)\\}}) (?=[{HAN}])")


def _tight(text: str, params: dict) -> str:
    """``text`` without the spaces that would stand between two Chinese characters once its
    placeholders are filled in."""

    def han(name: str, end: int) -> bool:
        value = str(params.get(name, ""))
        return bool(value) and re.match(f"[{HAN}]", value[end]) is not None

    text = _SPACE_BEFORE.sub(lambda m: m[1] if han(m[2], 0) else m[0], text)
    return _SPACE_AFTER.sub(lambda m: m[1] if han(m[2], -1) else m[0], text)


def t(key: str, lang: str | None = None, **params) -> str:
    """The string ``key`` in ``lang`` (default: the session's language), formatted with params."""
    text = pick(STRINGS[key], lang or current_lang(), params)
    return _tight(text, params).format(**params) if params else text


def error_text(error, lang: str | None = None) -> str:
    """The learner-facing message of an InputError in ``lang``; a finite float parameter is
    written as the pages write numbers in sentences (3.4 × 10³⁸, not 3.4e+38)."""
    entry = ERRORS.get(error.code)
    if entry is None:
        return str(error)
    params = {
        name: power_of_ten(value) if isinstance(value, float) and math.isfinite(value) else value
        for name, value in error.params.items()
    }
    return pick(entry, lang or current_lang(), params).format(**params)


def labeller(prefix: str):
    """A format_func for coded choices: code -> t(f"{prefix}_{code}") in this run's language
    (``prefix`` names its file too: labeller("shell.mode") reads shell.toml's mode_auto …).

    The language is fixed now, because Streamlit may call the function after the run ends.
    """
    lang = current_lang()
    join = "" if prefix.endswith(".") else "_"  # labeller("masks.") reads masks.toml's padding …
    return lambda code: t(f"{prefix}{join}{code}", lang)
