"""The lessons page in AppTest: every lesson listed in both languages, an item opens its example,
the t4 item and the one after it, and a lesson opened as a room."""

import pytest
from streamlit.testing.v1 import AppTest

from tests.support import ROOT
from tests.support.app import page_text, run_app
from ui.kit.i18n import t
from ui.views.lessons import LESSONS, LIKE


@pytest.mark.parametrize("lang, title", [("en", "Lessons"), ("zh", "课程")])
def test_the_page_lists_every_lesson_in_both_languages(lang, title):
    at = run_app("lessons", lang=lang)
    assert not at.exception
    text = page_text(at)
    assert title in text
    assert len(at.get("button")) >= sum(len(lesson.items) + 1 for lesson in LESSONS)


def test_an_item_opens_the_walkthrough_on_its_example():
    at = run_app("lessons", lang="zh")
    # lesson 2, item 6: the softmax of 学习's row
    at.button(key="go_pipeline_6").click().run()
    assert not at.exception
    assert at.session_state["step"] == "softmax"
    assert at.text_input(key="sentence").value == LIKE
    assert at.selectbox(key="focus").value == 2
    assert "查询行 2（“学习”）" in "\n".join(e.label for e in at.expander)


def test_the_t4_item_numbers_from_one_with_d_k_64():
    at = run_app("lessons", lang="en")
    at.button(key="go_transformer_3").click().run()
    assert not at.exception
    assert at.session_state["d_model"] == 64 and at.session_state["n_heads"] == 1
    text = page_text(at)
    assert "q₄·k₁" in text  # numbered from 1: the last of four rows is q₄
    assert "[4 × 64]" in text  # Q is 4 × 64: d_k = 64


def test_an_item_after_the_t4_one_goes_back_to_the_default_layer():
    at = run_app("lessons", lang="en")
    at.button(key="go_transformer_3").click().run()
    at.switch_page("pages/lessons.py").run()
    at.button(key="go_matrices_1").click().run()
    assert at.session_state["d_model"] == 8 and at.session_state["base_toggle"] is False


def test_a_lesson_opens_as_a_room_and_a_student_follows_its_page():
    teacher = run_app("lessons", lang="en")
    teacher.button(key="room_transformer").click().run()
    assert not teacher.exception
    code = teacher.session_state["room"]
    assert teacher.session_state["room_key"]
    student = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    student.query_params["room"] = code
    student.query_params["lang"] = "zh"
    student.run()
    assert not student.exception
    # the lesson's first view is the cost page: the student is taken there, in their language
    assert student.session_state["_page_script"] == "cost"
    assert t("cost.title", "zh") in page_text(student)
    # the teacher moves on to the T = 4 item: the student follows to the walkthrough's view
    teacher.switch_page("pages/lessons.py").run()
    teacher.button(key="go_transformer_3").click().run()
    student.run()
    assert student.session_state["_page_script"] == "walkthrough"
    assert student.session_state["d_model"] == 64
    assert student.session_state["step"] == "scores"
