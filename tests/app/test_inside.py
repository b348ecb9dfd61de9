"""The inside page: every figure it prints read back against this test's own computation from the
model's residual stream, attention maps and logits (numpy written here, not the page's helpers):
the lens table and its story, the sum of the stream's parts, the heads' scores and the repeat's
loss, and heads switched off; bad input kept in the box; the view in the URL."""

import re
from decimal import Decimal

import numpy as np
import pytest

from core.lessons.model_reading import MAP_POSITIONS, REPEAT_LENGTH, repeated_tokens
from tests.support.app import charts, decode, grids, page_text, room_opened, run_app
from tests.support.numbers import numbers
from tests.support.oracles import induction_by_hand
from tests.support.pieces import own_bytes

PROMPT = "法语：fleur，中文：花。法语：montagne，中文："  # the Chinese page opens on it
ENGLISH = "French: fleur, English: flower. French: montagne, English:"  # the English page's


def numbers_text(text: str) -> list[str]:
    """Every plain number in ``text`` as printed (a true minus sign kept), in order."""
    return re.findall(r"[−-]?\d+\.\d+", text)


def _softmax(row):
    row = np.asarray(row, dtype=np.float64)
    e = np.exp(row - row.max())
    return e / e.sum()


def _lens_rows(gemma, run):
    """Each stream row at the last position through the final norm and the tied head, by hand."""
    rows = []
    for h in run.H:
        x = h[-1].astype(np.float64)
        normed = x / np.sqrt(np.mean(x * x) + gemma.config.eps) * gemma.final_norm
        rows.append(gemma.E.astype(np.float64) @ normed)
    return np.array(rows)


def _losses(logits, ids):
    out = []
    for t in range(len(ids) - 1):
        row = np.asarray(logits[t], dtype=np.float64)
        out.append(np.log(np.exp(row - row.max()).sum()) + row.max() - row[ids[t + 1]])
    return np.array(out)


@pytest.fixture(scope="module")
def page(gemma):
    """The English page on the Chinese translation (the English page opens on its own)."""
    return run_app("inside", lang="en", in_prompt=PROMPT)


@pytest.mark.parametrize(("lang", "prompt"), [("en", ENGLISH), ("zh", PROMPT)])
def test_the_page_opens_on_the_translation_into_its_language(gemma, lang, prompt):
    at = run_app("inside", lang=lang)
    assert not at.exception
    assert at.text_area(key="in_prompt").value == prompt


def test_the_lens_table_is_every_layers_top_five(gemma, page):
    assert not page.exception
    run = gemma.forward(gemma.encode(PROMPT), residuals=True)
    logits = _lens_rows(gemma, run)
    table = next(d for d in grids(page) if "read after" in d.columns)
    rows = [row.replace("\u00a0", " ") for row in table["read after"]]  # (no-break spaces)
    assert rows == ["embedding"] + [f"layer {i}" for i in range(1, 19)]
    for layer in (0, 13, 17, 18):
        p = _softmax(logits[layer])
        order = np.argsort(-p)[:5]
        for k, token in enumerate(order):
            cell = table.iloc[layer, k + 1]
            assert float(cell.split()[-1]) == pytest.approx(p[token], abs=6e-4), cell
        top = own_bytes(gemma, int(order[0])).decode("utf-8").replace(" ", "␣")  # ␣: a space
        assert table.iloc[layer, 1].startswith("\u2068" + top)  # bidi-isolated: piece first


def test_the_lens_story_names_the_layers_the_test_finds(gemma, page):
    run = gemma.forward(gemma.encode(PROMPT), residuals=True)
    logits = _lens_rows(gemma, run)
    answer = int(np.argmax(run.logits[-1]))
    rank = (logits > logits[:, answer : answer + 1]).sum(axis=1) + 1
    top5, top1 = int(np.argmax(rank <= 5)), int(np.argmax(rank == 1))
    story = next(s.value for s in page.success if "The model's answer" in s.value)
    assert f"«{gemma.decode([answer])}»" in story
    assert (top5, top1) == (17, 17)  # layer 17 writes 山 ...
    assert f"straight in first place, only after layer {top1}" in story
    runs = []  # the four layers before it, a run of layers per first piece (row r: layer r)
    for r in range(top1 - 4, top1):
        first = int(np.argmax(logits[r]))
        if runs and runs[-1][2] == first:
            runs[-1][1] = r
        else:
            runs.append([r, r, first])
    said = []
    for k, (a, b, first) in enumerate(runs):
        layers = f"layer {a}" if a == b else f"layers {a}–{b}"
        word = own_bytes(gemma, first).decode("utf-8").replace(" ", "␣")  # a space seen: ␣
        said.append(f"{layers} put «{word}» first" if k == 0 else f"{layers} «{word}»")
    assert f"just before, {', '.join(said)}." in story, story  # layers 13–16: mont, ␣montagne …
    assert "montagne" in story  # montagne first


def test_the_parts_of_the_sum_are_the_tests_own(gemma, page):
    run = gemma.forward(gemma.encode(PROMPT), residuals=True)
    answer = int(np.argmax(run.logits[-1]))
    last = run.H[-1][-1].astype(np.float64)
    direction = gemma.final_norm * gemma.E[answer].astype(np.float64)
    direction /= np.sqrt(np.mean(last * last) + gemma.config.eps)
    embedding = float(run.H[0][-1] @ direction)
    attention = sum(float(a[-1] @ direction) for a, _ in run.added)
    feed_forward = sum(float(f[-1] @ direction) for _, f in run.added)
    line = next(i.value for i in page.info if i.value.startswith("embedding "))
    sum_part, rest = line.split("; the model's logit is ")
    shares, total = sum_part.split(" (")[0].split(" = ")
    parts = [Decimal(x.replace("−", "-")) for x in numbers_text(shares)]
    assert sum(parts) == Decimal(total.replace("−", "-"))  # it adds up as printed, exactly
    np.testing.assert_allclose([float(x) for x in parts], [embedding, attention, feed_forward],
                               atol=5.01e-4)  # fmt: skip
    exact = embedding + attention + feed_forward
    assert abs(float(total) - exact) <= 3 * 5.01e-4  # three parts, half a place each
    note = "(the sum of the parts as printed, each rounded to 3 decimals; unrounded they add to"
    assert (note in line) == (total != f"{exact:.3f}"), line  # said where rounding moved it
    if note in line:
        assert f"unrounded they add to {exact:.3f})" in line
    assert numbers(rest)[0] == pytest.approx(float(run.logits[-1, answer]), abs=6e-4)  # the logit
    where = next(s.value for s in page.success if s.value.startswith("Where"))
    shares = [float(a[-1] @ direction) for a, _ in run.added]
    shares += [float(f[-1] @ direction) for _, f in run.added]
    best = int(np.argmax(shares))
    kind = "attention" if best < 18 else "feed-forward"
    assert f"the {kind} of layer {best % 18 + 1} (+{shares[best]:.2f})" in where


def test_the_repeats_loss_and_its_drop(gemma, page):
    ids = repeated_tokens(gemma, 0)
    loss = _losses(gemma.forward(ids).logits, ids)
    first, second = loss[1:REPEAT_LENGTH].mean(), loss[REPEAT_LENGTH + 1 :].mean()
    drop = next(s.value for s in page.success if s.value.startswith("Mean loss"))
    assert numbers(drop) == pytest.approx([first, second, first - second], abs=6e-3)


def test_switching_off_the_top_induction_heads_breaks_the_copy(gemma):
    at = run_app("inside", lang="zh")
    at.button(key="in_off_top").click().run()
    assert not at.exception
    ids = repeated_tokens(gemma, 0)
    scores = induction_by_hand(gemma.forward(ids).A, ids)
    top = sorted(np.argsort(-scores.ravel())[:3])
    off = {divmod(int(k), 4) for k in top}
    assert (5, 1) in off  # layer 6, head 2 counted from 1
    names = "、".join(f"层 {layer + 1} 头 {head + 1}" for layer, head in sorted(off))
    story = next(s.value for s in at.success if s.value.startswith("关掉"))
    assert names in story
    before = _losses(gemma.forward(ids).logits, ids)[REPEAT_LENGTH + 1 :].mean()
    after = _losses(gemma.forward(ids, off=off).logits, ids)[REPEAT_LENGTH + 1 :].mean()
    assert numbers(story.split("之后")[1]) == pytest.approx([before, after], abs=6e-3)
    assert after > 5 * before  # the copy breaks
    assert at.query_params["off"] == ",".join(f"{a + 1}.{b + 1}" for a, b in sorted(off))


def test_heads_off_from_the_url_and_none_is_the_whole_model():
    at = run_app("inside", lang="en", off="6.2")
    assert not at.exception
    assert at.multiselect(key="in_off").value == ["6.2"]
    assert "Switching off L6 H2 moves" in page_text(at)
    at = run_app("inside", lang="en", off="6.2,99.1")  # a head that does not exist: said
    assert not at.exception
    assert at.multiselect(key="in_off").value == []
    assert any("off=6.2,99.1" in w.value for w in at.warning)
    at = run_app("inside", lang="en")
    assert at.multiselect(key="in_off").value == []
    assert "No head is switched off" in page_text(at)


@pytest.mark.parametrize(
    ("text", "lang", "said"),
    [
        ("", "en", "Type a prompt"),
        ("x" * 2500, "zh", "2500"),
        ("<bos>山", "en", "<bos>"),
    ],
)
def test_bad_input_is_said_and_kept_in_the_box(text, lang, said):
    at = run_app("inside", lang=lang)
    at.text_area(key="in_prompt").set_value(text).run()
    assert not at.exception
    assert at.text_area(key="in_prompt").value == text
    shown = page_text(at)
    assert said in shown or any(said in e.value for e in at.error), shown[:500]
    assert not re.search(r"Traceback", shown)


def test_a_teacher_asks_which_layer_first_knows_the_answer(gemma):
    import ui.room.connection as room

    _, code, key = room_opened()
    teacher = run_app("inside", room=code, key=key, lang="en", in_prompt=PROMPT)
    assert teacher.selectbox(key="q_kind_inside").value == "first_layer"
    teacher.button(key="room_ask").click().run()
    question = room.rooms().get(code)["question"]
    run = gemma.forward(gemma.encode(PROMPT), residuals=True)
    logits = _lens_rows(gemma, run)
    answer = int(np.argmax(run.logits[-1]))
    rank = (logits > logits[:, answer : answer + 1]).sum(axis=1) + 1
    assert [label for label, _ in question["choices"]][question["answer"]] == "17"
    assert int(np.argmax(rank <= 5)) == 17
    student = run_app(room=code, lang="zh")
    assert not student.exception
    assert "“山”在第几层之后第一次进入模型的前 5 名" in page_text(student)
    teacher.button(key="room_reveal").click().run()
    shown = " ".join(c.value for c in teacher.code)
    assert f"17: {rank[17]}" in shown
    assert "after layer 16 and 1 after layer 17" in page_text(teacher)


def test_the_gallery_table_and_the_rank_chart_are_the_tests_own(gemma, page):
    """The heads' table on the repeat, sorted by induction, and the rank chart's points, against
    loops written here."""
    ids = repeated_tokens(gemma, 0)
    A = gemma.forward(ids).A
    induction = induction_by_hand(A, ids)
    previous = np.array([[maps[h, np.arange(1, len(ids)), np.arange(len(ids) - 1)].mean()
                          for h in range(4)] for maps in A])  # fmt: skip
    table = next(d for d in grids(page) if "induction" in d.columns)
    order = np.argsort(-induction.ravel(), kind="stable")
    for row in range(5):
        layer, head = divmod(int(order[row]), 4)
        assert table["head"].iloc[row] == f"L{layer + 1} H{head + 1}"
        assert float(table["induction"].iloc[row]) == pytest.approx(
            induction[layer, head], abs=6e-4
        )
        assert float(table["previous"].iloc[row]) == pytest.approx(previous[layer, head], abs=6e-4)
    assert table["head"].iloc[0] == "L6 H2"
    run = gemma.forward(gemma.encode(PROMPT), residuals=True)
    logits = _lens_rows(gemma, run)
    answer = int(np.argmax(run.logits[-1]))
    rank = (logits > logits[:, answer : answer + 1]).sum(axis=1) + 1
    spec = next(s for s in charts(page) if s["layout"]["title"]["text"].startswith("Rank of"))
    np.testing.assert_array_equal(decode(spec["data"][0]["y"]).astype(int), rank)


def test_the_lens_map_is_each_rows_first_piece_and_a_phone_gets_its_last_four(gemma, page):
    """The map's cells against the test's own lens rows at the first and last of its positions;
    the phone's twin is its last 4 columns (a phone cannot print 6 columns of words)."""
    ids = gemma.encode(PROMPT)
    run = gemma.forward(ids, residuals=True)
    maps = [s for s in charts(page) if s["layout"]["title"]["text"].startswith("Each layer's most")]
    assert [len(s["data"][0]["x"]) for s in maps] == [MAP_POSITIONS, 4]
    wide, phone = (s["data"][0] for s in maps)
    assert [row[-4:] for row in wide["text"]] == phone["text"]
    for column in (0, MAP_POSITIONS - 1):
        position = len(ids) - MAP_POSITIONS + column
        assert wide["x"][column].startswith(f"{position + 1}·")
        for row in (0, 17, 18):
            x = run.H[row][position].astype(np.float64)
            normed = x / np.sqrt(np.mean(x * x) + gemma.config.eps) * gemma.final_norm
            p = _softmax(gemma.E.astype(np.float64) @ normed)
            z = np.asarray(decode(wide["z"]), dtype=float)
            assert z[row, column] == pytest.approx(p.max(), abs=1e-4)
