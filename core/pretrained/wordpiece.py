"""BERT's tokenizer, as the reference BertTokenizer does it: basic splitting, then WordPiece."""

import unicodedata
from dataclasses import dataclass

from core.pretrained.pieces import Piece

_CJK = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B820, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)


def _is_cjk(ch: str) -> bool:
    return any(lo <= ord(ch) <= hi for lo, hi in _CJK)


def _is_punctuation(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_control(ch: str) -> bool:
    return ch not in "\t\n\r" and unicodedata.category(ch) in ("Cc", "Cf")


def basic_tokens(text: str, lowercase: bool = True) -> list[str]:
    """Whitespace, punctuation and every CJK character split apart; lower-cased, accents off."""
    cleaned = []
    for ch in text:
        if ord(ch) in (0, 0xFFFD) or _is_control(ch):
            continue
        cleaned.append(" " if ch.isspace() else f" {ch} " if _is_cjk(ch) else ch)
    tokens = []
    for word in "".join(cleaned).split():
        if lowercase:
            word = "".join(
                c
                for c in unicodedata.normalize("NFD", word.lower())
                if unicodedata.category(c) != "Mn"
            )
        piece = ""
        for ch in word:
            if _is_punctuation(ch):
                tokens += [piece] if piece else []
                tokens.append(ch)
                piece = ""
            else:
                piece += ch
        tokens += [piece] if piece else []
    return tokens


def wordpiece(token: str, vocab: dict, unk: str = "[UNK]", max_chars: int = 100) -> list[str]:
    """Greedy longest match from the left; later pieces carry "##"; no match -> [UNK]."""
    if len(token) > max_chars:
        return [unk]
    pieces, start = [], 0
    while start < len(token):
        stop = len(token)
        while stop > start:
            candidate = token[start:stop] if start == 0 else "##" + token[start:stop]
            if candidate in vocab:
                pieces.append(candidate)
                break
            stop -= 1
        else:
            return [unk]
        start = stop
    return pieces


@dataclass
class WordPieceTokenizer:
    vocab: dict  # piece -> id
    lowercase: bool = True

    def pieces(self, sentence: str) -> list[Piece]:
        """[CLS], each word's WordPiece pieces (remembering the word), [SEP]."""
        out = [Piece("[CLS]", None, self.vocab["[CLS]"])]
        unknown = self.vocab["[UNK]"]
        for w, word in enumerate(sentence.split()):
            for token in basic_tokens(word, self.lowercase):
                out += [
                    Piece(p, w, self.vocab.get(p, unknown)) for p in wordpiece(token, self.vocab)
                ]
        return out + [Piece("[SEP]", None, self.vocab["[SEP]"])]
