"""The pieces table's rows and words, by core/pretrained/piece_text.py's rule, for whichever
tokenizer the chosen model has: each piece as a reader reads it (a space made visible, ␣), its
bytes, the character a piece that is part of one helps spell, and the caption that says how this
model's tokenizer writes its pieces (<bos> or none, ▁ or Ġ, where hex comes in)."""

from dataclasses import dataclass

import core
from core.pretrained import piece_text
from ui.kit.i18n import current_lang, t
from ui.kit.number_text import unbroken

VISIBLE_SPACE = "␣"
EXAMPLE = {"sentencepiece": "E4", "byte_level": unbroken("E4 BB")}  # the caption's hex example
WORD_JOINER = "\u2060"  # no line break between the characters it stands between


def visible(tokenizer, i: int) -> str:
    """Piece ``i`` as every surface prints it (next_token.label is this): shown(), its spaces as
    ␣, so that a leading space is seen (“␣blue”) and a cell of spaces is never empty; a piece
    that is part of a character keeps its hex ("20 E5")."""
    text = piece_text.shown(tokenizer, i)
    return text if piece_text.is_part(tokenizer, i) else text.replace(" ", VISIBLE_SPACE)


@dataclass(frozen=True)
class Split:
    """Where the prompt's characters are cut between pieces."""

    of: list  # per piece: the character(s) it holds part of ("" for a piece of whole characters)
    sizes: list  # per character cut: how many pieces spell it


def split(tokenizer, ids) -> Split:
    """Each character's bytes laid over the pieces' bytes: a character no piece holds whole is
    cut, and each piece holding part of it names it."""
    spans, at = [], 0  # each piece's bytes, [start, end) in the text's bytes
    for i in ids:
        data = piece_text.piece_bytes(tokenizer, i) or b""
        spans.append((at, at + len(data)))
        at += len(data)
    data = b"".join(piece_text.piece_bytes(tokenizer, i) or b"" for i in ids)
    text = data.decode("utf-8", errors="replace")
    of = [""] * len(ids)
    sizes, at, first = [], 0, 0
    for ch in text:
        start, at = at, at + len(ch.encode("utf-8"))
        while first < len(spans) and spans[first][1] <= start:  # pieces wholly before it
            first += 1
        holders = []
        for k in range(first, len(spans)):
            if spans[k][0] >= at:
                break
            if spans[k][1] > spans[k][0]:  # (a control token holds no bytes)
                holders.append(k)
        if len(holders) < 2:  # whole in one piece
            continue
        sizes.append(len(holders))
        for k in holders:
            of[k] += VISIBLE_SPACE if ch == " " else ch
    return Split(of, sizes)


def caption(model) -> str:
    """How this model's tokenizer writes its pieces, from its registry row: the piece put before
    every text (or none), the space's mark, and where hex comes in."""
    entry = core.decoder_entry(model.name)
    rule = entry.pieces
    words = [
        t("generate.pieces_bos", model=entry.display, bos=rule.bos)
        if rule.bos
        else t("generate.pieces_no_bos", model=entry.display),
        t("generate.pieces_space", mark=VISIBLE_SPACE, space=rule.space),
        t(f"generate.pieces_hex_{rule.kind}", example=EXAMPLE[rule.kind]),
    ]
    return joined(words)


def note(model, cut: Split) -> str:
    """Said where the prompt's pieces cut a character: how many, into how many pieces each, and
    the row that names it (its Chinese name held on one line: “属于”, never “属 / 于”)."""
    lo, hi = min(cut.sizes), max(cut.sizes)
    spread = str(lo) if lo == hi else f"{lo}–{hi}"
    row = t("generate.col_char")
    row = WORD_JOINER.join(row) if current_lang() == "zh" else row
    return t("generate.pieces_cut", count=len(cut.sizes), range=spread, row=row,
             model=core.decoder_entry(model.name).display)  # fmt: skip


def joined(sentences: list) -> str:
    """Sentences one after another: a space between English ones, none between Chinese ones."""
    return ("" if current_lang() == "zh" else " ").join(sentences)
