"""The lessons page in AppTest: every lesson listed in both languages with its items numbered from
1, an item opens its example with the lesson's band (its place, the previous and next items, kept
in the URL), the t4 item and the one after it, a lesson opened as a room, and the numbers the
hand-check and trained-model items print once opened."""

import math

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from core.lessons import hand_example
from core.lessons.plan import LESSONS, LIKE, MOVIE
from tests.support import ROOT
from tests.support.app import decode, page_text, run_app
from tests.support.numbers import app_oracle, assert_cells, assert_printed, chart_keyed, numbers
from tests.support.oracles import by_hand
from ui.kit.escape import markdown_text
from ui.kit.i18n import t
from ui.kit.number_text import numbered
from ui.shell.registry import script_path

BAND = {
    "en": "**Lesson {lesson} · item {item} / {n}**",
    "zh": "**第 {lesson} 课 · 第 {item} / {n} 项**",
}
ARROWS = {"en": ("◀ Previous item", "Next item ▶"), "zh": ("◀ 上一项", "下一项 ▶")}


def band_line(at: AppTest) -> str:
    lines = [m.value for m in at.markdown if m.value.startswith(("**Lesson ", "**第 "))]
    assert len(lines) <= 1, lines
    return lines[0] if lines else ""


def open_item(lang: str, lesson: int, item: int, **query) -> AppTest:
    at = run_app("lessons", lang=lang, **query)
    at.button(key=f"go_{LESSONS[lesson - 1].key}_{item}").click().run()
    assert not at.exception
    return at


@pytest.mark.parametrize("lang, title", [("en", "Lessons"), ("zh", "课程")])
def test_the_page_lists_every_lesson_in_both_languages(lang, title):
    at = run_app("lessons", lang=lang)
    assert not at.exception
    text = page_text(at)
    assert title in text
    assert len(at.get("button")) >= sum(len(lesson.items) + 1 for lesson in LESSONS)
    assert not band_line(at)  # the list itself is no lesson's item


@pytest.mark.parametrize(("lang", "base"), [("en", 1), ("zh", 1), ("en", 0)])
def test_each_lessons_items_are_numbered_from_one_to_n(lang, base):
    """Items from 1 to n, whatever the numbering; their titles' own numbers (q₁·k₁, layer 6)
    follow the learner's (from 1 unless base=0)."""
    at = run_app("lessons", lang=lang, **({} if base else {"base": "0"}))
    for lesson in LESSONS:
        for number, item in enumerate(lesson.items, start=1):
            label = at.button(key=f"go_{lesson.key}_{number}").label
            assert label == f"{number}. {t(f'lessons.item_{item.key}', lang, **numbered(base))}"
        assert not any(b.key == f"go_{lesson.key}_{len(lesson.items) + 1}" for b in at.button)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_item_shows_its_place_in_the_lesson(lang):
    at = open_item(lang, 2, 1)
    n = len(LESSONS[1].items)
    title = t(f"lessons.item_{LESSONS[1].items[0].key}", lang)
    assert band_line(at) == BAND[lang].format(lesson=2, item=1, n=n) + f" · {markdown_text(title)}"
    previous, following = at.button(key="lesson_previous"), at.button(key="lesson_next")
    assert (previous.label, following.label) == ARROWS[lang]
    assert previous.disabled and not following.disabled  # nothing before the first item
    assert at.query_params["lesson"] == "2" and at.query_params["item"] == "1"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_next_and_previous_open_the_neighbouring_items(lang):
    at = open_item(lang, 2, 1)
    assert at.session_state["step"] == "qkv"
    at.button(key="lesson_next").click().run()  # item 2: 学习's scores
    assert not at.exception
    assert at.session_state["step"] == "scores" and at.selectbox(key="focus").value == 2
    assert band_line(at).startswith(BAND[lang].format(lesson=2, item=2, n=11))
    for _ in range(5):  # items 3-7: ÷√d_k, softmax, why scale, A V, why project
        at.button(key="lesson_next").click().run()
    assert at.session_state["_page_script"] == "projections"
    assert at.query_params["item"] == "7"
    assert at.selectbox(key="pj_q").value == 2  # its lookup asks about 学习, as the lesson does
    at.button(key="lesson_previous").click().run()  # back to item 6: 学习's output
    assert at.session_state["_page_script"] == "walkthrough" and at.session_state["step"] == "av"
    assert band_line(at).startswith(BAND[lang].format(lesson=2, item=6, n=11))


def test_the_last_item_has_no_next():
    at = open_item("en", 2, 11)  # lesson 2's last: the usual mistakes
    assert at.session_state["_page_script"] == "mistakes"
    assert band_line(at).startswith(BAND["en"].format(lesson=2, item=11, n=11))
    assert at.button(key="lesson_next").disabled and not at.button(key="lesson_previous").disabled


def test_a_reload_keeps_the_band_and_the_items_own_query_row():
    """A fresh session on the item's URL (a reload, a shared link): the band, and the lookup's
    query row, which no URL key names, set once on arrival; the learner may then change it."""
    at = run_app("projections", lang="zh", sentence=MOVIE, lesson="3", item="5", base="1")
    assert not at.exception
    assert band_line(at).startswith(BAND["zh"].format(lesson=3, item=5, n=13))
    assert at.selectbox(key="pj_q").value == 4  # 好看
    at.selectbox(key="pj_q").set_value(1).run()
    assert at.selectbox(key="pj_q").value == 1  # arriving once, not on every rerun


@pytest.mark.parametrize("query", [{"lesson": "9", "item": "1"}, {"lesson": "2", "item": "99"},
                                   {"lesson": "two", "item": "1"}, {"lesson": "2"}])  # fmt: skip
def test_a_url_naming_no_item_draws_no_band(query):
    at = run_app(lang="en", **query)
    assert not at.exception and not band_line(at)


def test_an_item_opens_the_walkthrough_on_its_example():
    at = open_item("zh", 2, 4)  # lesson 2, item 4: the softmax of 学习's row
    assert at.session_state["step"] == "softmax"
    assert at.text_input(key="sentence").value == LIKE
    assert at.selectbox(key="focus").value == 2  # index 2, row 3 counted from 1 (the default)
    assert "查询行 3（“学习”）" in "\n".join(e.label for e in at.expander)


@pytest.mark.parametrize(
    ("query", "last", "absent"), [({}, "q₄·k₁", "q₀"), ({"base": "0"}, "q₃·k₀", "q₄")]
)
def test_the_t4_item_keeps_the_learners_numbering_with_d_k_64(query, last, absent):
    """The item names no numbering: from 1 by default (the last of four rows is q₄), from 0 for
    a learner who counts from 0 (q₃)."""
    at = open_item("en", 3, 2, **query)
    assert at.session_state["d_model"] == 64 and at.session_state["n_heads"] == 1
    assert "base" not in dict(LESSONS[2].items[1].params)
    assert at.session_state["base_toggle"] is (not query)  # {}: from 1; base=0: from 0
    text = page_text(at).replace("\u00a0", " ")  # (a shapes bracket's no-break spaces)
    assert last in text and absent not in text
    assert "[4 × 64]" in text  # Q is 4 × 64: d_k = 64


@pytest.mark.parametrize("query", [{}, {"base": "0"}])
def test_an_item_after_the_t4_one_goes_back_to_the_default_layer(query):
    """The layer's settings go back to their defaults; the numbering stays the learner's."""
    at = open_item("en", 3, 2, **query)
    at.switch_page(script_path("lessons")).run()
    at.button(key="go_matrices_1").click().run()
    assert at.session_state["d_model"] == 8
    assert at.session_state["base_toggle"] is (not query)  # {}: from 1; base=0: from 0


def test_a_lesson_opens_as_a_room_and_a_student_follows_its_page():
    teacher = run_app("lessons", lang="en")
    teacher.button(key="room_transformer").click().run()
    assert not teacher.exception
    code = teacher.session_state["room"]
    assert teacher.session_state["room_key"]
    assert band_line(teacher).startswith(BAND["en"].format(lesson=3, item=1, n=13))
    student = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    student.query_params["room"] = code
    student.query_params["lang"] = "zh"
    student.run()
    assert not student.exception
    # the lesson's first view is the cost page: the student is taken there, in their language
    assert student.session_state["_page_script"] == "cost"
    assert t("cost.title", "zh") in page_text(student)
    # the teacher moves on to the T = 4 item with the band: the student follows
    teacher.button(key="lesson_next").click().run()
    student.run()
    assert student.session_state["_page_script"] == "walkthrough"
    assert student.session_state["d_model"] == 64
    assert student.session_state["step"] == "scores"


def item_at(key: str, page: str) -> tuple[int, int, object]:
    """(lesson number, item number, the lesson) of the item ``key`` that opens ``page``."""
    for number, lesson in enumerate(LESSONS, start=1):
        for index, item in enumerate(lesson.items, start=1):
            if item.key == key and item.page == page:
                return number, index, lesson
    raise AssertionError(f"no item {key} on {page}")


LEARNER = {"en": 0, "zh": 1}  # the items below: an English learner counting from 0, a Chinese
# one on the default (from 1); a lesson leaves the learner's numbering as it is


def learner(base: int) -> dict:
    """The URL of a learner who numbers from ``base``: base=0, or nothing (the default, 1)."""
    return {} if base else {"base": "0"}


def softmax_by_loop(row) -> list[float]:
    e = [math.exp(v - max(row)) for v in row]
    return [x / math.fsum(e) for x in e]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_hand_check_item_opens_on_the_example_worked_by_hand(lang):
    """The lesson's hand-check item opens the page numbered as the learner numbers (from 1 by
    default, from 0 with base=0), and its A and O tables and each query's weights and output
    (a_i, o_i) print the example worked in plain Python (by_hand)."""
    number, index, _ = item_at("hand", "hand-check")
    base = LEARNER[lang]
    at = open_item(lang, number, index, **learner(base))
    assert at.session_state["_page_script"] == "hand-check"
    assert bool(at.session_state["base_toggle"]) == bool(base)
    _, A, O = by_hand(hand_example.example(4))
    tables = [table.value for table in at.table][4:]  # after X, W_Q, W_K, W_V: e^x, A, O
    for table, expected in ((tables[1], A), (tables[2], O)):
        assert_printed([numbers(c)[0] for c in table.to_numpy().ravel()], expected, 2)
        assert list(table.index)[0].startswith(f"{base} · ")
    start = "**Query q" if lang == "en" else "**查询 q"
    boxes = [m.value.split("\n- ") for m in at.markdown if m.value.startswith(start)]
    assert len(boxes) == 3
    for i, lines in enumerate(boxes):
        assert_printed(numbers(lines[-2])[1:], A[i], 2, f"a_{i}")  # Σ, then a_i
        assert_printed(numbers(lines[-1])[-len(O[i]) :], O[i], 2, f"o_{i}")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_by_hand_item_prints_the_softmax_of_xue_xis_row(lang):
    """The 'small enough for paper' item (d_model = 4, one head) prints A = softmax(S/√d_k)
    from the app's inputs through the per-head oracle, and 学习's worked row: m, each
    e^(x_j − m), their sum and each a_2j = e^(x_j − m) ÷ Σ, computed here."""
    number, index, _ = item_at("like_by_hand", "walkthrough")
    base = LEARNER[lang]
    at = open_item(lang, number, index, **learner(base))
    assert at.session_state["step"] == "softmax" and at.selectbox(key="focus").value == 2
    o = app_oracle(LIKE, d_model=4, n_heads=1)
    assert o.tokens[2] == "学习"
    assert_cells(chart_keyed(at, "fig_softmax"), o.A[0], 2, "A")
    x = list(o.S_scaled[0][2])
    m = max(x)
    e = [math.exp(v - m) for v in x]
    total = math.fsum(e)
    assert np.allclose([v / total for v in e], softmax_by_loop(x))
    row = next(v.value for v in at.markdown if v.value.startswith("- ") and "÷" in v.value)
    lines = [line.removeprefix("- ") for line in row.split("\n")]
    assert_printed(numbers(lines[0]), [m], 2, "m")
    for j in range(4):
        assert_printed(numbers(lines[1 + j]), [j + base, x[j], m, e[j]], 2, f"e^(x_{j} − m)")
    assert_printed(numbers(lines[5]), [total], 2, "Σ")
    for j in range(4):
        assert_printed(numbers(lines[6 + j]), [e[j], total, e[j] / total], 2, f"a_2{j}")


@pytest.mark.parametrize(("key", "lang"), [("relative", "zh"), ("movie", "en")])
def test_the_trained_model_items_open_on_hao_kan_and_dian_ying(key, lang):
    """The trained-model items open e5 on 这 部 电影 很 好看 with 好看 as the query: in the head
    the page opens on, 好看's row gives 电影 its largest weight (the lesson's claim) and that
    weight is the layer × head map's largest; the expander's numbers hold together (S/√d_k =
    Q Kᵀ/√32 of the Q and K shown, A = softmax of each S row, O = A V), and the focus and
    strongest lines print the A shown, its row's sum 1 and the even share 1/n, all computed here
    from the printed charts, numbered as the learner numbers."""
    number, index, _ = item_at(key, "trained")
    base = LEARNER[lang]
    at = open_item(lang, number, index, **learner(base))
    assert at.session_state["_page_script"] == "trained"
    assert at.text_input(key="tr_text").value == MOVIE
    focus, other = at.selectbox(key="tr_focus"), at.selectbox(key="tr_key")
    q, k = focus.value, other.value
    assert focus.options[q].endswith("好看") and other.options[k].endswith("电影")
    shown = {name: decode(chart_keyed(at, f"tr_{name}")["data"][0]["z"]).astype(float)
             for name in ("A", "who", "Q", "K", "V", "S", "O")}  # fmt: skip
    A, who = shown["A"], shown["who"]
    layer, head = at.select_slider(key="tr_layer").value, at.select_slider(key="tr_head").value
    assert int(np.argmax(A[q])) == k  # 好看 attends to 电影 most
    assert abs(who[layer, head] - A[q, k]) < 1e-6 and abs(who.max() - A[q, k]) < 1e-6
    Q, K, V, S, O = (shown[name] for name in ("Q", "K", "V", "S", "O"))
    np.testing.assert_allclose(S, Q @ K.T / math.sqrt(Q.shape[1]), rtol=1e-5, atol=1e-3)
    np.testing.assert_allclose(A, [softmax_by_loop(row) for row in S], atol=1e-4)
    np.testing.assert_allclose(O, A @ V, atol=1e-4)
    n = len(A)
    lines = [m.value for m in at.markdown if "“好看”" in m.value and "“电影”" in m.value]
    focus_line, strongest = lines[:2]
    assert_printed(numbers(focus_line), [layer + base, head + base, A[q, k], A[q].max(), 1], 2)
    assert_printed(numbers(strongest), [layer + base, head + base, A[q, k], n, 1 / n], 2)


def test_a_generate_items_address_bar_holds_its_whole_view(gemma):
    """Lesson 4, item 4 (temperature 1.5, seeded sampling on 猫坐在): the address the button
    leaves in the bar can be copied and shared as it is, the prompt, T and seed included."""
    at = run_app("lessons", lang="zh")
    at.button(key="go_writes_4").click().run()
    assert not at.exception
    query = {k: at.query_params[k] for k in ("gen_prompt", "gen_t", "gen_seed", "gen_mode")}
    assert query == {"gen_prompt": "猫坐在", "gen_t": "1.5", "gen_seed": "7", "gen_mode": "sample"}
    shared = run_app("generate", **{k: at.query_params[k] for k in at.query_params})
    assert shared.text_area(key="gen_prompt").value == "猫坐在"
    assert shared.slider(key="gen_t").value == 1.5
