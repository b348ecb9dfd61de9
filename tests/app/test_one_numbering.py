"""One numbering for the whole app (issue 55): the sidebar's switch, from 1 unless the URL says
base=0, governs every number a page prints for a row, token, layer or head, on /generate, /inside,
/train, the lessons' cards and titles, and a room follows its teacher's. Each page is read back
at both settings and its numbers compared with the same 0-based position counted by hand."""

import pytest

from core.lessons.plan import TRANSLATION
from tests.support.app import chart_titled, grids, page_text, room_opened, run_app

GEMMA_LAYERS, GEMMA_HEADS = 18, 4


@pytest.mark.parametrize("base", [1, 0])
def test_inside_names_its_layers_and_heads_as_the_sidebar_says(gemma, base):
    query = {"base": "0"} if base == 0 else {}
    at = run_app("inside", lang="en", in_prompt=TRANSLATION, **query)
    assert not at.exception
    assert at.toggle(key="base_toggle").value is bool(base)
    lens = next(d for d in grids(at) if "read after" in d.columns)
    rows = [row.replace("\u00a0", " ") for row in lens["read after"]]  # (no-break spaces)
    assert rows == ["embedding"] + [f"layer {i + base}" for i in range(18)]
    # the answer (山) comes first after the 17th layer counted from 1: code layer 16
    story = next(s.value for s in at.success if "The model's answer" in s.value)
    assert (
        f"comes first after layer {16 + base}" in story or f"only after layer {16 + base}" in story
    )
    heads = next(d for d in grids(at) if "induction" in d.columns)
    names = set(heads.iloc[:, 0])
    assert f"L{GEMMA_LAYERS - 1 + base} H{GEMMA_HEADS - 1 + base}" in names
    assert (f"L{base - 1} H{base}" in names) is False  # nothing before the first layer
    ticks = chart_titled(at, "Rank of")["layout"]["xaxis"]["ticktext"]
    assert ticks[0] == "emb." and ticks[1:] == [str(i + base) for i in range(18)]


@pytest.mark.parametrize("base", [1, 0])
def test_generate_numbers_its_boxes_tables_and_titles_alike(gemma, base):
    query = {"base": "0"} if base == 0 else {}
    at = run_app("generate", lang="en", **query)
    assert not at.exception
    layer, head = at.selectbox(key="gen_layer"), at.selectbox(key="gen_head")
    assert (layer.value, head.value) == (17, 0)  # the last layer, the first head: from 0 in code
    assert layer.options[17] == str(17 + base) and head.options[0] == str(base)
    title = f"layer {17 + base}, head {base}"
    assert title in page_text(at) + " ".join(
        c["layout"]["title"]["text"] for c in [chart_titled(at, "Attention in layer")]
    )
    pieces = next(d for d in grids(at) if "" in d.columns and len(d.columns) > 3)
    assert list(pieces.columns[1:4]) == [str(base), str(base + 1), str(base + 2)]


@pytest.mark.parametrize("base", [1, 0])
def test_train_names_its_heads_as_the_sidebar_says(base):
    query = {"base": "0"} if base == 0 else {}
    at = run_app("train", lang="en", **query)
    assert not at.exception
    picker = at.selectbox(key="tr_bw_head")
    last = 2 - 1  # the repeat task's default model has two layers: its last, from 0 in code
    assert picker.options == [f"L{last + base} H{j + base}" for j in range(4)]


def test_switching_the_numbering_redraws_the_boxes_and_the_lessons(gemma):
    at = run_app("generate", lang="zh")
    at.toggle(key="base_toggle").set_value(False).run()
    assert not at.exception and at.query_params["base"] == "0"
    assert at.selectbox(key="gen_layer").options[17] == "17"
    assert "层 17、头 0 的注意力" in chart_titled(at, "层 17")["layout"]["title"]["text"]
    lessons = run_app("lessons", lang="zh", base="0")
    captions = " ".join(c.value for c in lessons.caption)
    assert "从 0 开始编号" in captions and "从 1 开始编号" not in captions
    items = " ".join(b.label for b in lessons.button)
    assert "q₀·k₀ … q₃·k₃" in items and "层 12–15 是“montagne”，从层 16" in items
    ones = " ".join(b.label for b in run_app("lessons", lang="zh").button)
    assert "q₁·k₁ … q₄·k₄" in ones and "层 13–16 是“montagne”，从层 17" in ones


def test_a_lesson_link_keeps_the_learners_numbering():
    at = run_app("lessons", lang="en", base="0")
    at.button(key="go_transformer_2").click().run()  # the tutorial's q₁ … q₄ lesson
    assert not at.exception
    assert at.query_params.get("base") == "0" and at.toggle(key="base_toggle").value is False


def test_a_room_follows_its_teachers_numbering():
    _, code, key = room_opened()
    run_app(room=code, key=key, lang="en", base="0", step="softmax")
    student = run_app(room=code, lang="zh")
    assert not student.exception
    assert student.session_state["base_toggle"] is False
    assert student.selectbox(key="focus").options[:2] == ["0 · the", "1 · movie"]
    alone = run_app(lang="en", step="softmax")  # and a learner alone counts from 1
    assert alone.selectbox(key="focus").options[:2] == ["1 · the", "2 · movie"]


@pytest.mark.parametrize("base", [1, 0])
def test_generates_url_names_the_layer_from_0_whatever_the_numbering(gemma, base):
    """Lesson 4's gen_sink item opens gen_layer=5: code layer 5, the first global one, shown as
    layer 6 counted from 1 (its title says so too) and as layer 5 from 0."""
    query = {"base": "0"} if base == 0 else {}
    at = run_app("generate", lang="en", gen_layer="5", gen_head="2", **query)
    assert not at.exception and not at.warning
    assert (at.selectbox(key="gen_layer").value, at.selectbox(key="gen_head").value) == (5, 2)
    assert at.query_params["gen_layer"] == "5" and at.query_params["gen_head"] == "2"
    assert f"Attention in layer {5 + base}, head {2 + base}" in " ".join(
        c["layout"]["title"]["text"] for c in [chart_titled(at, "Attention in layer")]
    )
    assert f"Layer {5 + base} is global" in page_text(at)
