"""Split a sentence into tokens: on spaces, per character, or into Chinese words with jieba."""

import logging
import re
import threading
import unicodedata

from core import word_freq
from core.errors import InputError

MODES = ("auto", "space", "char", "jieba")

# A run of CJK ideographs (jieba splits it into words), a Latin/digit word, or any other
# single non-space character (punctuation, symbols, other scripts) as its own token.
_PIECE = re.compile(r"([\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+)|(\w+)|(\S)")

_jieba = None
_jieba_lock = threading.Lock()


def _load_jieba():
    """Import jieba and load its dictionary once per process, quietly."""
    global _jieba
    with _jieba_lock:
        if _jieba is None:
            import jieba

            jieba.setLogLevel(logging.WARNING)
            word_freq.give_to(jieba.dt)  # 8 MB instead of 71, kept once built (core/word_freq.py)
            _jieba = jieba
    return _jieba


def _split_mixed(sentence: str) -> list[str]:
    """Chinese runs into jieba words; Latin words and each punctuation mark as their own tokens."""
    tokens = []
    for match in _PIECE.finditer(sentence):
        chinese, word, other = match.groups()
        if chinese:
            tokens.extend(_load_jieba().lcut(chinese))
        else:
            tokens.append(word or other)
    return tokens


def _is_invisible(ch: str) -> bool:
    """Control and format characters (zero-width spaces, joiners, direction marks), not spaces."""
    return unicodedata.category(ch) in ("Cc", "Cf") and not ch.isspace()


def count_invisible(sentence: str) -> int:
    """How many characters tokenize() drops as invisible."""
    return sum(_is_invisible(ch) for ch in str(sentence or ""))


def clean(sentence: str) -> str:
    """NFC-normalised (a letter and its combining marks become one character where Unicode has
    one) without control or zero-width characters, which would make invisible tokens."""
    text = unicodedata.normalize("NFC", str(sentence))
    return "".join(ch for ch in text if not _is_invisible(ch))


def tokenize(
    sentence: str, mode: str = "auto", max_tokens: int | None = None, max_chars: int | None = None
) -> list[str]:
    """Tokens of ``sentence``; InputError when it is empty, longer than ``max_chars`` characters
    or has more than ``max_tokens`` tokens. Invisible characters are dropped first."""
    if mode not in MODES:
        raise InputError("unknown_mode", mode=mode, modes=", ".join(MODES))
    if max_chars is not None and sentence is not None and len(str(sentence)) > max_chars:
        raise InputError("too_long", n=len(str(sentence)), limit=max_chars)
    sentence = clean(sentence) if sentence is not None else ""
    if not sentence.strip():
        raise InputError("empty_sentence")
    has_space = any(ch.isspace() for ch in sentence.strip())
    if mode == "space" or (mode == "auto" and has_space):
        tokens = sentence.split()
    elif mode == "char":
        tokens = [ch for ch in sentence if not ch.isspace()]
    elif mode == "jieba":
        tokens = [t for t in _load_jieba().lcut(sentence) if t.strip()]
    else:
        tokens = _split_mixed(sentence)
    if not tokens:
        raise InputError("empty_sentence")
    if max_tokens is not None and len(tokens) > max_tokens:
        raise InputError("too_many_tokens", n=len(tokens), limit=max_tokens)
    return tokens
