"""Every piece readable on /generate, for both tokenizers (issue 65): SmolLM2's byte-level pieces
and Gemma's byte fallback in AppTest, in both languages, against this test's own reading of the
vocabulary (GPT-2's byte table, tests/core/test_piece_text.py) and its own greedy run with Python's
incremental UTF-8 decoder: the pieces table, the bars and the training table carry no GPT-2
letter; the caption says this model's rule (<bos> and ▁ for Gemma, none and Ġ for SmolLM2); the
text written so far holds an unfinished character back as its bytes and says how many are to
come, never "�"."""

import codecs
import re

import numpy as np
import pytest

from tests.support.app import charts, grids, run_app
from tests.support.pieces import GARBLE, own_bytes
from ui.kit.i18n import t

SMOL = "smollm2-135m"
CHINESE = "今天天气很好，我们一起去"
RARE = "今天 𠀀 好"  # 𠀀: in no vocabulary, four byte pieces in Gemma's too


@pytest.fixture(scope="module", autouse=True)
def smollm2_loaded():
    """SmolLM2 loaded before the pages ask for it (tests/app/test_model_choice.py)."""
    from ui.work import model_load

    model_load.start(SMOL)
    model_load.model(SMOL)


def _expected_piece(model, i: int) -> str:
    data = own_bytes(model, i)
    if data is None:
        return model.tokenizer.vocabulary[i]
    try:
        return data.decode("utf-8").replace(" ", "␣")
    except UnicodeDecodeError:
        return " ".join(f"{b:02X}" for b in data)


NBSP = "\u00a0"  # a piece's bytes are held on one line: "E4\u00a0BB"


def _spaced(text) -> str:
    """A cell or a line with its non-breaking spaces as plain ones."""
    return str(text).replace(NBSP, " ")


def _decodes(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _pieces_table(at, lang: str) -> dict:
    """The pieces table as {row name: its cells}, its rows named as the page names them (its
    bytes' non-breaking spaces as plain ones: _bytes_held_on_one_line checks them)."""
    names = [t("generate.col_piece", lang), t("generate.col_id", lang)]
    table = next(d for d in grids(at) if list(d.iloc[:2, 0]) == names)
    return {row.iloc[0]: [_spaced(c) for c in row.iloc[1:]] for _, row in table.iterrows()}


def _bytes_held_on_one_line(at) -> None:
    """Every cell of bytes in the pieces table ("E4 BB") joins them with no-break spaces."""
    table = next(d for d in grids(at) if t("generate.col_id", "en") in list(d.iloc[:, 0])
                 or t("generate.col_id", "zh") in list(d.iloc[:, 0]))  # fmt: skip
    cells = [str(c) for c in table.iloc[:, 1:].to_numpy().ravel()]
    assert any(NBSP in c for c in cells) and not any(re.fullmatch(r"[0-9A-F]{2}( [0-9A-F]{2})+", c)
                                                     for c in cells), cells  # fmt: skip


def _captions(at) -> list[str]:
    return [_spaced(c.value).replace("\\", "") for c in at.caption]


def _no_garble(texts) -> None:
    bad = [text for text in texts if set(str(text)) & GARBLE]
    assert not bad, bad


def _cut_sizes(model, ids, text: str) -> list[int]:
    """How many pieces each character that no piece holds whole takes, by offsets."""
    spans, at = [], 0
    for i in ids:
        size = len(own_bytes(model, i) or b"")
        spans.append((at, at + size))
        at += size
    sizes, at = [], 0
    for ch in text:
        start, at = at, at + len(ch.encode())
        if not any(s <= start and at <= e for s, e in spans):
            sizes.append(sum(1 for s, e in spans if s < at and start < e))
    return sizes


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_smollm2s_pieces_and_text_read_as_text_or_bytes(smollm2, lang):
    at = run_app("generate", lang=lang, model=SMOL, gen_prompt=CHINESE, written=2)
    assert not at.exception
    ids = smollm2.encode(CHINESE)
    rows = _pieces_table(at, lang)
    piece, bytes_row, part_of = (t(f"generate.col_{k}", lang) for k in ("piece", "bytes", "char"))
    assert rows[piece] == [_expected_piece(smollm2, i) for i in ids]
    assert rows[bytes_row] == [own_bytes(smollm2, i).hex(" ").upper() for i in ids]
    assert rows[part_of][:3] == ["今", "今", "天"]  # 今 = E4 BB + 8A
    whole = [k for k, i in enumerate(ids) if _decodes(own_bytes(smollm2, i))]
    assert whole and all(rows[part_of][k] == "—" for k in whole)  # ，: whole, never a blank cell
    _no_garble(rows[piece] + rows[part_of])
    _bytes_held_on_one_line(at)

    captions = _captions(at)
    rule = next(c for c in captions if c.startswith("SmolLM2-135M") and "UTF-8" in c)
    assert "<bos>" not in rule and "▁" not in rule and "Ġ" in rule and "E4 BB" in rule
    sizes = _cut_sizes(smollm2, ids, CHINESE)
    note = next(c for c in captions if ("这段提示词" in c) or ("characters of this prompt" in c))
    assert str(len(sizes)) in note and f"{min(sizes)}–{max(sizes)}" in note

    trace, written = smollm2.forward(ids), []  # greedy, the page's default, through the cache
    for _ in range(2):
        written.append(int(np.argmax(trace.logits[-1])))
        trace = smollm2.forward([written[-1]], trace.cache)
    decoder = codecs.getincrementaldecoder("utf-8")()
    data = b"".join(own_bytes(smollm2, i) for i in [*ids, *written])
    text, held = decoder.decode(data, final=False), decoder.getstate()[0]
    line = next(m.value for m in at.markdown if m.value.startswith(("**Text so far:**", "**目前")))
    shown = re.sub(r"<[^>]+>", "", re.sub(r"^\*\*[^*]+\*\*[:：]?", "", line)).replace("\\", "")
    shown = _spaced(shown)
    assert "\ufffd" not in shown
    assert held  # SmolLM2 writes E7, then 9C: a third byte still to come
    missing = next(n for n in range(1, 5) if (held[0] >> (7 - n)) & 1 == 0) - len(held)
    assert shown.strip() == f"{text}{held.hex(' ').upper()} …"
    told = next(c for c in captions if c.startswith(("Step 2 chose", "第 2 步选了")))
    words = {"en": f"{missing} byte", "zh": f"还差 {missing} 个字节"}[lang]
    assert words in told and held.hex(" ").upper() in told
    bars = next(c for c in charts(at) if "10" in str(c["layout"]["title"]["text"]))
    _no_garble(bars["data"][0]["x"])
    inputs, targets = t("generate.col_input", lang), t("generate.col_target", lang)
    training = next(d for d in grids(at) if inputs in d.columns)
    expected = [_expected_piece(smollm2, i) for i in ids[:-1]]  # as the pieces table: one rule
    assert [_spaced(c) for c in training[inputs]] == expected
    _no_garble(list(training[inputs]) + list(training[targets]))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_gemmas_caption_says_bos_and_its_space_mark_and_its_byte_pieces(gemma, lang):
    at = run_app("generate", lang=lang, gen_prompt=RARE)
    assert not at.exception
    ids = gemma.encode(RARE)
    rows = _pieces_table(at, lang)
    piece, part_of = t("generate.col_piece", lang), t("generate.col_char", lang)
    assert rows[piece] == [_expected_piece(gemma, i) for i in ids]
    assert rows[piece][0] == "<bos>" and ["F0", "A0", "80", "80"] == [
        p for p in rows[piece] if re.fullmatch(r"[0-9A-F]{2}", p)
    ]
    assert rows[part_of].count("𠀀") == 4
    rule = next(c for c in _captions(at) if c.startswith("Gemma 3 270M") and "UTF-8" in c)
    assert "<bos>" in rule and "▁" in rule and "Ġ" not in rule
    note = next(c for c in _captions(at) if c.startswith(("1 character", "这段提示词")))
    assert re.findall(r"\d+", note.split("Gemma")[0]) in ([], ["1"])  # one character cut (𠀀)
    assert "4 pieces" in note or "4 个 token" in note  # its four bytes
    inputs = t("generate.col_input", lang)  # Gemma's ▁ alone: ␣, never an empty cell
    training = next(d for d in grids(at) if inputs in d.columns)
    assert [_spaced(c) for c in training[inputs]] == [_expected_piece(gemma, i) for i in ids[:-1]]
    assert "␣" in list(training[inputs]) and all(str(c).strip() for c in training[inputs])
