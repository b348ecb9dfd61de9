"""/lessons: every item opens its page with the tutorial example's exact settings, its link says
the same, and a lesson opens as a room whose students follow the teacher's page and view."""

import pytest
from streamlit.testing.v1 import AppTest

from core.tokens import tokenize
from tests.app.helpers import page_text, run_app
from tests.conftest import ROOT
from ui.kit.i18n import t
from ui.kit.settings import BY_URL
from ui.shell.registry import PAGES
from ui.views.lessons import LESSONS, LIKE, url

SCRIPTS = {page.script for page in PAGES}


def test_every_item_names_a_page_and_valid_settings():
    for lesson in LESSONS:
        for item in lesson.items:
            assert item.page in SCRIPTS, item
            for name, value in item.params:
                if name in BY_URL:
                    assert BY_URL[name].valid(value), (item.key, name, value)


def test_the_issues_examples_are_all_there():
    params = [dict(item.params) for lesson in LESSONS for item in lesson.items]
    assert {"tr_text": "这 部 电影 很 好看", "tr_focus": "好看", "tr_key": "电影"}.items() <= next(
        p for p in params if p.get("tr_focus")
    ).items()
    like = next(p for p in params if p.get("sentence") == LIKE)
    assert tokenize(LIKE)[int(like["focus"])] == "学习"
    t4 = next(p for p in params if p.get("d_model") == "64")
    assert len(tokenize(t4["sentence"])) == 4 and t4["n_heads"] == "1" and t4["base"] == "1"
    loves = {
        (p["sentence"], p["pe"]) for p in params if p.get("sentence") in ("我喜欢你", "你喜欢我")
    }
    assert loves == {(s, pe) for s in ("我喜欢你", "你喜欢我") for pe in ("true", "false")}
    assert any(item.page == "hand-check" for lesson in LESSONS for item in lesson.items)


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


def test_links_carry_the_same_settings():
    item = LESSONS[1].items[5]
    link = url(item, "zh")
    assert link.startswith("/?lang=zh&sentence=") and "step=softmax" in link and "focus=2" in link


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
    assert t("co_title", "zh") in page_text(student)
    # the teacher moves on to the T = 4 item: the student follows to the walkthrough's view
    teacher.switch_page("pages/lessons.py").run()
    teacher.button(key="go_transformer_3").click().run()
    student.run()
    assert student.session_state["_page_script"] == "walkthrough"
    assert student.session_state["d_model"] == 64
    assert student.session_state["step"] == "scores"
