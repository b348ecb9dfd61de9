"""Pieces read from a vocabulary by the tests themselves, not by the app's code: GPT-2's byte table
as OpenAI wrote it, and Gemma's "▁" and "<0xE4>" (tests/core/test_piece_text.py,
tests/app/test_pieces_readable.py)."""

from core.pretrained.byte_bpe import LETTERS


def _gpt2_bytes_to_unicode() -> dict:
    """GPT-2's encoder.py bytes_to_unicode, as OpenAI wrote it."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))
    bs += list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


BYTE_OF_LETTER = _gpt2_bytes_to_unicode()
# the letters a byte-level vocabulary writes that are not the text's own: all but printable ASCII
# (Ġ Ċ ä » ...; the prompts here hold no Latin-1 letter, so any of them on a page is garbling)
GARBLE = {c for c in LETTERS if not ("!" <= c <= "~")}


def own_bytes(model, i: int) -> bytes | None:
    """Piece ``i``'s bytes read from the vocabulary by this test: None for a control token."""
    tokenizer, piece = model.tokenizer, model.tokenizer.vocabulary[i]
    if tokenizer.types[i] == 3:
        return None
    if model.name == "smollm2-135m":  # byte-level: every letter a byte
        return bytes(BYTE_OF_LETTER[c] for c in piece)
    if tokenizer.types[i] == 6:  # SentencePiece's byte fallback, "<0xE4>"
        return bytes([int(piece[3:5], 16)])
    return piece.replace("▁", " ").encode("utf-8")
