"""The lessons page in AppTest: every lesson listed in both languages with its items numbered from
1, an item opens its example with the lesson's band (its place, the previous and next items, kept
in the URL), the t4 item and the one after it, and a lesson opened as a room."""

import pytest
from streamlit.testing.v1 import AppTest

from core.lessons.plan import LESSONS, LIKE, MOVIE
from tests.support import ROOT
from tests.support.app import page_text, run_app
from ui.kit.escape import markdown_text
from ui.kit.i18n import t

BAND = {
    "en": "**Lesson {lesson} · item {item} / {n}**",
    "zh": "**第 {lesson} 课 · 第 {item} / {n} 项**",
}
ARROWS = {"en": ("◀ Previous item", "Next item ▶"), "zh": ("◀ 上一项", "下一项 ▶")}


def band_line(at: AppTest) -> str:
    lines = [m.value for m in at.markdown if m.value.startswith(("**Lesson ", "**第 "))]
    assert len(lines) <= 1, lines
    return lines[0] if lines else ""


def open_item(lang: str, lesson: int, item: int) -> AppTest:
    at = run_app("lessons", lang=lang)
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


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_lessons_items_are_numbered_from_one_to_n(lang):
    at = run_app("lessons", lang=lang)
    for lesson in LESSONS:
        for number, item in enumerate(lesson.items, start=1):
            label = at.button(key=f"go_{lesson.key}_{number}").label
            assert label == f"{number}. {t(f'lessons.item_{item.key}', lang)}"
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
    lesson = LESSONS[3]
    at = open_item("en", 4, len(lesson.items))
    assert band_line(at).startswith(BAND["en"].format(lesson=4, item=6, n=6))
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
    assert at.selectbox(key="focus").value == 2
    assert "查询行 2（“学习”）" in "\n".join(e.label for e in at.expander)


def test_the_t4_item_numbers_from_one_with_d_k_64():
    at = open_item("en", 3, 2)
    assert at.session_state["d_model"] == 64 and at.session_state["n_heads"] == 1
    text = page_text(at)
    assert "q₄·k₁" in text  # numbered from 1: the last of four rows is q₄
    assert "[4 × 64]" in text  # Q is 4 × 64: d_k = 64


def test_an_item_after_the_t4_one_goes_back_to_the_default_layer():
    at = open_item("en", 3, 2)
    at.switch_page("pages/lessons.py").run()
    at.button(key="go_matrices_1").click().run()
    assert at.session_state["d_model"] == 8 and at.session_state["base_toggle"] is False


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
