"""The class's practice in a room, in AppTest, on SQLite and on a real Redis: 30 students (each
its own session, so its own browser) check lines of NumPy and ``ui.room.practice.record`` sends
each verdict; the teacher's band counts them per step and mistake, in the teacher's language,
names no student, and projects one wrong result, its numbers those the student sent."""

import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import classroom.store
import ui.room.connection
from classroom.rooms import _browser
from tests.support.app import charts, decode, page_text, room_opened, run_app
from tests.support.servers import RedisServer
from ui.room import connection as room

SENTENCE = "the cat sat on the mat"
LINES = {
    "right": "softmax(S_masked, axis=-1)",
    "wrong_axis": "softmax(S_masked, axis=0)",
    "mask_zero": "softmax(np.where(mask, S_scaled, 0), axis=-1)",
    "error": "__import__('os')",
}
# 30 students' lines for A, the first sent by each; then some send again (the latest counts)
FIRST = ["right"] * 12 + ["wrong_axis"] * 9 + ["mask_zero"] * 5 + ["error"] * 4
AGAIN = {12: "right", 13: "right", 26: "right", 0: "wrong_axis"}


@pytest.fixture(params=["sqlite", "redis"])
def room_store(request, rooms_in_a_fresh_store, tmp_path, monkeypatch):
    """The app's rooms on a SQLite file (the app tests' default) or on a redis-server of the
    test's own."""
    if request.param == "sqlite":
        yield request.param
        return
    (tmp_path / "redis").mkdir()
    server = RedisServer(tmp_path / "redis")
    monkeypatch.setenv("ROOM_STORE", server.url)
    monkeypatch.setattr(ui.room.connection, "_rooms", None)
    monkeypatch.setattr(classroom.store, "_shared", None)
    monkeypatch.setitem(classroom.store._checked, "at", -float("inf"))
    yield request.param
    server.stop()


def student_checks():
    """A student's page: check the line in the session's state and record its verdict, as a
    practice page does (AppTest runs this function's source as a script)."""
    import streamlit as st

    import core.practice
    from ui.room.practice import record
    from ui.work.traces import trace_for

    settings, step, line, head = st.session_state["_test_check"]
    data = trace_for(settings)
    verdict = core.practice.check(step, line, data.trace, head, data.W)
    st.session_state["_test_sent"] = verdict.value
    record(settings, step, verdict, head=head)


def student(code: str, settings) -> AppTest:
    at = AppTest.from_function(student_checks, default_timeout=60)
    at.session_state["room"] = code
    at.session_state["_test_settings"] = settings
    return at


def check(at: AppTest, line: str, step: str = "A", head: int = 0) -> AppTest:
    at.session_state["_test_check"] = (at.session_state["_test_settings"], step, line, head)
    at.run()
    assert not at.exception
    return at


def room_settings(code: str):
    from ui.kit.settings import SETTINGS, Settings

    view = room.rooms().get(code)["view"]
    return Settings(**{s.name: view[s.state_key] for s in SETTINGS if s.layer})


def test_the_teacher_sees_each_steps_counts_and_mistakes_and_projects_one(room_store):
    _, code, key = room_opened()
    teacher = run_app(room=code, key=key, lang="en", sentence=SENTENCE, step="softmax",
                      mask="causal")  # fmt: skip
    assert not teacher.exception and "Practice" not in page_text(teacher)  # none sent yet
    settings = room_settings(code)
    students = [check(student(code, settings), LINES[outcome]) for outcome in FIRST]
    sent = {i: students[i].session_state["_test_sent"] for i in range(len(students))}
    for i, outcome in AGAIN.items():
        check(students[i], LINES[outcome])
        sent[i] = students[i].session_state["_test_sent"]
    check(students[20], "np.where(mask, S_scaled, 0)", "S_masked")  # another step: mask_zero
    check(students[21], "np.where(mask, S_scaled, -np.inf)", "S_masked")
    last_wrong_axis = students[0].session_state["_test_sent"]  # the latest wrong_axis sent

    teacher.run()
    assert not teacher.exception
    text = page_text(teacher)
    # A: 30 answered, 12 - 1 + 3 right; wrong_axis 9 - 2 + 1 = 8, mask_zero 5, error 4 - 1 = 3
    assert "**A**: 30 answered · 14 right" in text, text
    assert ("Not right yet: softmax along the wrong axis 8 · 0 where −∞ belongs 5"
            " · a line that did not run 3") in text  # fmt: skip
    assert "**S\\_masked**: 2 answered · 1 right" in text
    assert "Not right yet: 0 where −∞ belongs 1" in text
    # no student is named anywhere: not their browser's id, nor its hash; nor the room's key
    ids = [s.session_state["_browser_id"] for s in students]
    shown = text + json.dumps(charts(teacher)) + " ".join(c.value for c in teacher.code)
    for browser in ids:
        assert browser not in shown and _browser(browser) not in shown

    teacher.button(key="practice_project_A").click().run()
    assert not teacher.exception
    assert "one student's result, anonymous" in page_text(teacher)
    wrong = next(c for c in charts(teacher) if c["layout"]["title"]["text"].startswith(
        "A student's A: softmax along the wrong axis"))  # fmt: skip
    right = next(c for c in charts(teacher) if c["layout"]["title"]["text"] == "The right A")
    z = decode(wrong["data"][0]["z"])  # (the chart keeps float32)
    assert np.array_equal(z, np.round(last_wrong_axis, 4).astype(z.dtype))  # as it was sent
    from ui.room.practice import practice

    kept = practice().wrong(code, "A", "wrong_axis")["value"]
    assert kept == np.round(last_wrong_axis, 4).tolist()  # to the 4th decimal, as the room keeps
    assert np.allclose(decode(right["data"][0]["z"]), sent[1], atol=1e-6)  # a right one
    for browser in ids:
        assert browser not in json.dumps(charts(teacher)) + page_text(teacher)

    teacher.run()  # the projection stays, as it was sent, until hidden
    assert any(c["layout"]["title"]["text"] == "The right A" for c in charts(teacher))
    teacher.button(key="practice_hide").click().run()
    assert not any(c["layout"]["title"]["text"] == "The right A" for c in charts(teacher))


def test_the_teachers_language_names_the_mistakes_and_a_fresh_start_clears_them(room_store):
    _, code, key = room_opened("zh")
    teacher = run_app(room=code, key=key, lang="zh", sentence=SENTENCE, step="softmax",
                      mask="causal")  # fmt: skip
    settings = room_settings(code)
    for outcome in ("right", "wrong_axis", "mask_zero"):
        check(student(code, settings), LINES[outcome])
    explorer = student(code, settings.__class__(**{**vars(settings), "sentence": "Alice Smith"}))
    check(explorer, LINES["wrong_axis"])  # exploring their own sentence: counted, never shown
    teacher.run()
    text = page_text(teacher)
    assert "**A**：4 人作答 · 1 人正确" in text, text
    assert "还没做对：softmax 用错了轴 2 · 该填 −∞ 的地方填了 0 1" in text
    teacher.button(key="practice_project_A").click().run()
    assert "Alice" not in page_text(teacher) + json.dumps(charts(teacher))
    assert any(c["layout"]["title"]["text"] == "正确的 A" for c in charts(teacher))
    teacher.button(key="practice_clear").click().run()
    assert not teacher.exception and "4 人作答" not in page_text(teacher)


def test_outside_a_room_and_for_the_teacher_nothing_is_recorded(room_store):
    _, code, key = room_opened()
    run_app(room=code, key=key, lang="en", sentence=SENTENCE, mask="causal")
    settings = room_settings(code)
    alone = student(code, settings)
    alone.session_state["room"] = None
    check(alone, LINES["right"])  # no room: nothing, no error
    teacher_tab = student(code, settings)
    teacher_tab.session_state["room_key"] = key
    check(teacher_tab, LINES["right"])  # the teacher trying a line is not a student's answer
    from ui.room.practice import practice

    assert practice().summary(code) == {}
    gone = student("ZZZZZ", settings)
    check(gone, LINES["right"])  # a room closed meanwhile: the page carries on


def test_a_wrong_result_on_another_head_is_projected_beside_that_heads_right_one(room_store):
    _, code, key = room_opened()
    teacher = run_app(room=code, key=key, lang="en", sentence=SENTENCE, step="softmax",
                      mask="causal")  # fmt: skip
    settings = room_settings(code)
    sent = check(student(code, settings), LINES["wrong_axis"], head=1).session_state["_test_sent"]
    teacher.run()
    teacher.button(key="practice_project_A").click().run()
    assert "A, head 2: one student's result" in page_text(teacher)  # (numbered from 1)
    wrong = next(c for c in charts(teacher) if c["layout"]["title"]["text"].startswith(
        "A student's A"))  # fmt: skip
    right = next(c for c in charts(teacher) if c["layout"]["title"]["text"] == "The right A")
    from ui.work.traces import trace_for

    head_1 = trace_for(settings).trace.A[1]
    assert np.allclose(decode(right["data"][0]["z"]), head_1, atol=1e-6)
    assert np.allclose(decode(wrong["data"][0]["z"]), np.round(sent, 4), atol=1e-6)
    assert not np.allclose(head_1, trace_for(settings).trace.A[0])
