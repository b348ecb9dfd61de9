"""Split a sentence into tokens: on spaces, per character, or into Chinese words with jieba."""

import logging
import re
import threading

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
            jieba.initialize()
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


def tokenize(sentence: str, mode: str = "auto", max_tokens: int | None = None) -> list[str]:
    """Tokens of ``sentence``; InputError when it is empty or has more than ``max_tokens``."""
    if mode not in MODES:
        raise InputError("unknown_mode", mode=mode, modes=", ".join(MODES))
    if sentence is None or not str(sentence).strip():
        raise InputError("empty_sentence")
    sentence = str(sentence)
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
