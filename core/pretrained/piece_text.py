"""Every decoder's pieces as a reader can read them, whatever its tokenizer: one rule for every
surface (the pieces table, the bars, the lens, the gallery, the written text, the notebooks).

    shown(tokenizer, i)       # "的", " cat", "<bos>", "E5 A4" (part of a character: its bytes)
    written(tokenizer, ids)   # the text, and the bytes of a character not finished yet

A byte-level BPE (SmolLM2's, GPT-2's kind) writes its vocabulary in letters that stand for bytes
("Ġcat", "ä»Ĭ"); a SentencePiece (Gemma's) writes ▁ for a space and a rare character as byte
pieces "<0xE4>". Neither is for a reader: a piece that is whole characters shows as its text, a
piece that is part of a character as its bytes in hex, and a control token by its name.
"""

from dataclasses import dataclass

CONTROL, BYTE = 3, 6  # GGUF token types
SPACE_MARK = "▁"  # SentencePiece's space


def piece_bytes(tokenizer, i: int) -> bytes | None:
    """The UTF-8 bytes piece ``i`` stands for; None for a control token (<bos>, <|im_start|>)."""
    i = int(i)
    kind = tokenizer.types[i]
    if kind == CONTROL:
        return None
    if hasattr(tokenizer, "piece_bytes"):  # byte-level: every piece is bytes
        return tokenizer.piece_bytes(i)
    piece = tokenizer.vocabulary[i]
    if kind == BYTE:  # "<0xE4>"
        return bytes([int(piece[3:5], 16)])
    return piece.replace(SPACE_MARK, " ").encode("utf-8")


def hex_bytes(data: bytes) -> str:
    return " ".join(f"{b:02X}" for b in data)


def shown(tokenizer, i: int) -> str:
    """Piece ``i`` for a reader: its text when it is whole characters (a run of spaces or newlines
    as escapes, "\\n"), its bytes in hex when it is part of a character ("E5 A4"), a control
    token by its name ("<bos>")."""
    data = piece_bytes(tokenizer, i)
    if data is None:
        return tokenizer.vocabulary[int(i)]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return hex_bytes(data)
    return repr(text)[1:-1] if text.strip() == "" else text


def is_part(tokenizer, i: int) -> bool:
    """True when piece ``i`` is part of a character (shown as its bytes)."""
    data = piece_bytes(tokenizer, i)
    if data is None:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


@dataclass(frozen=True)
class Written:
    text: str  # every character the pieces finish (control tokens left out)
    tail: bytes  # the bytes of a last character the pieces have begun and not finished
    missing: int  # how many more bytes that character needs (0: none begun)


def _needed(lead: int) -> int:
    """A UTF-8 character's length from its first byte (1 for a byte that begins none)."""
    if lead >= 0xF0:
        return 4
    if lead >= 0xE0:
        return 3
    if lead >= 0xC0:
        return 2
    return 1


def written(tokenizer, ids) -> Written:
    """The text of ``ids``, its last character held back while its bytes are not all there (a
    byte-level model writes 山 as E5 then B1 B1): "还差 1 个字节" can be said instead of "�"."""
    data = b"".join(b for b in (piece_bytes(tokenizer, i) for i in ids) if b is not None)
    tail = b""
    for back in range(1, min(4, len(data)) + 1):  # the last lead byte within 4 of the end
        byte = data[-back]
        if byte & 0xC0 != 0x80:  # not a continuation byte: a character begins here
            if _needed(byte) > back:
                tail = data[-back:]
            break
    body = data[: len(data) - len(tail)]
    missing = _needed(tail[0]) - len(tail) if tail else 0
    return Written(body.decode("utf-8", errors="replace"), tail, missing)
