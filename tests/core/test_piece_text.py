"""Every piece readable, for both tokenizers (issue 65): core/pretrained/piece_text.py's rule, the
labels every /generate and /inside surface prints through it (next_token.label, names.piece), and
the pieces table's "part of" row, each checked against the test's own reading of the vocabulary:
GPT-2's byte table written out here again, Gemma's "▁" and "<0xE4>" read here, and Python's own
incremental UTF-8 decoder for the text held back while a character is unfinished."""

import codecs
import re

import pytest

from core.pretrained import piece_text
from core.pretrained.byte_bpe import LETTERS
from tests.support.pieces import BYTE_OF_LETTER, GARBLE, own_bytes

MIXED = "今天天气很好，我们一起去 The cat sat on the mat. 山 𠀀 ok"
HEX = re.compile(r"^[0-9A-F]{2}( [0-9A-F]{2})*$")


def _decodes(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@pytest.fixture(params=["smollm2", "gemma"])
def model(request):
    return request.getfixturevalue(request.param)


def test_the_letters_table_is_gpt2s():
    assert {c: b for b, c in enumerate(LETTERS)} == BYTE_OF_LETTER
    assert LETTERS[ord(" ")] == "Ġ" and LETTERS[ord("\n")] == "Ċ"


def test_every_piece_is_shown_as_text_or_as_its_bytes(model):
    """No GPT-2 letter on any piece; hex for a piece exactly when its bytes are no whole
    characters; the text otherwise; the pieces' bytes together the prompt's own."""
    from ui.views.generate.next_token import label

    ids = model.encode(MIXED)
    shown = [piece_text.shown(model.tokenizer, i) for i in ids]
    assert not {c for text in shown for c in text} & GARBLE, shown
    rebuilt = b""
    for i, text in zip(ids, shown):
        own = own_bytes(model, i)
        # every surface prints this: a space as ␣ (" cat" as ␣cat; never an empty cell)
        part = piece_text.is_part(model.tokenizer, i)
        assert label(model, i) == (text if part else text.replace(" ", "␣"))
        if own is None:
            assert text == "<bos>"
            continue
        assert piece_text.piece_bytes(model.tokenizer, i) == own
        if _decodes(own):
            assert text == own.decode("utf-8") and not piece_text.is_part(model.tokenizer, i)
        else:
            assert HEX.match(text) and bytes.fromhex(text) == own, text
            assert piece_text.is_part(model.tokenizer, i)
        rebuilt += own
    assert rebuilt == MIXED.encode("utf-8")
    parts = [text for i, text in zip(ids, shown) if piece_text.is_part(model.tokenizer, i)]
    assert {"F0", "A0", "80"} <= set(parts)  # 𠀀 is no piece of either vocabulary: four bytes
    if model.name == "smollm2-135m":
        assert "E4 BB" in parts and "<bos>" not in shown  # 今 = E4 BB + 8A; SmolLM2 adds no <bos>
    else:
        assert shown[0] == "<bos>" and "今天" in shown  # Gemma's words are whole


def test_both_pages_write_a_space_alone_visibly(smollm2, gemma):
    from ui.views.generate.next_token import label
    from ui.views.inside.names import piece

    for model in (smollm2, gemma):
        ids = model.encode("a  b")  # two spaces: a piece of a space alone
        alone = [i for i in ids if (own_bytes(model, i) or b"x").strip() == b""]
        assert alone, model.name
        for i in alone:
            assert piece(model, i) == label(model, i) == "␣" * len(own_bytes(model, i))


def _incremental(data: bytes, rest: bytes) -> tuple[str, bytes, int]:
    """Python's own incremental decoder over ``data``: the text it gives out, the bytes it still
    holds, and how many of the bytes that follow (``rest``) it takes before it gives the held
    character out."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    text = decoder.decode(data, final=False)
    held = decoder.getstate()[0]
    more = 0
    while held and not decoder.decode(rest[more : more + 1], final=False):
        more += 1
    return text, held, more + 1 if held else 0


def test_written_holds_back_exactly_the_unfinished_character(model):
    ids, whole = model.encode(MIXED), MIXED.encode("utf-8")
    unfinished = 0
    for end in range(len(ids) + 1):
        data = b"".join(own_bytes(model, i) or b"" for i in ids[:end])
        text, held, missing = _incremental(data, whole[len(data) :])
        got = piece_text.written(model.tokenizer, ids[:end])
        assert (got.text, got.tail, got.missing) == (text, held, missing), end
        assert "\ufffd" not in got.text
        unfinished += missing > 0
    assert unfinished >= 3  # 𠀀's first three bytes (and SmolLM2's Chinese) left one unfinished
    assert piece_text.written(model.tokenizer, ids).text == MIXED


def test_the_part_of_row_names_the_character_each_part_spells(model):
    """A character is cut when no piece holds all its bytes; each piece holding some of them
    names it, and the note counts the pieces each cut character takes: by offsets, in loops."""
    from ui.views.generate.piece_rows import split

    ids = model.encode(MIXED)
    spans, at = [], 0
    for i in ids:
        size = len(own_bytes(model, i) or b"")
        spans.append((at, at + size))
        at += size
    names, sizes, at = [""] * len(ids), [], 0
    for ch in MIXED:
        start, end = at, at + len(ch.encode("utf-8"))
        at = end
        if any(s <= start and end <= e for s, e in spans):  # whole in one piece
            continue
        holders = [k for k, (s, e) in enumerate(spans) if s < end and start < e]
        sizes.append(len(holders))
        for k in holders:
            names[k] += ch
    cut = split(model.tokenizer, ids)
    assert cut.of == names and cut.sizes == sizes
    for i, name in zip(ids, names):  # a piece names a character exactly when it is a part
        assert bool(name) == piece_text.is_part(model.tokenizer, i)
    assert sizes.count(4) >= 1 and "𠀀" in "".join(names)  # 𠀀: four bytes, four pieces
    if model.name == "smollm2-135m":
        assert names[:2] == ["今", "今"] and set(sizes) <= {2, 3, 4}
