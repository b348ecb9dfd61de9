"""A class against its store's faults and a mischievous student, in AppTest on real stores: a
Redis server killed and started again mid-class, a SQLite folder that cannot be written, two
teacher tabs, a reloading student, failed joins, and links, images and HTML sent as a code."""

import re

import pytest

import classroom.store
import ui.kit.browser
import ui.room.connection
from tests.support.app import charts, page_text, run_app
from tests.support.servers import RedisServer
from ui.views.walkthrough.steps import NAMES as STEPS


@pytest.fixture
def redis_store(tmp_path, monkeypatch):
    server = RedisServer(tmp_path)
    monkeypatch.setenv("ROOM_STORE", server.url)
    monkeypatch.setattr(ui.room.connection, "_rooms", None)
    monkeypatch.setattr(classroom.store, "_shared", None)
    monkeypatch.setitem(classroom.store._checked, "at", -float("inf"))
    yield server
    server.stop()


def _open(lang="en"):
    at = run_app("room", lang=lang)
    at.button(key="room_open").click().run()
    code, key = at.session_state["room_opened"]
    return code, key


def _visible(at) -> str:
    """Everything a person reads on the page, with the address bar."""
    return page_text(at) + " ".join(c.value for c in at.code) + str(dict(at.query_params))


def test_a_redis_restart_mid_class_shows_reconnecting_and_recovers_without_a_reload(redis_store):
    code, key = _open()
    teacher = run_app(room=code, key=key, lang="zh", step="scores")
    student = run_app(room=code, lang="zh")
    assert student.session_state["step"] == "scores"
    redis_store.kill()
    teacher.button(key="next_step").click().run()  # the teacher presses Next during the outage
    student.run()
    for at in (teacher, student):
        assert not at.exception and not at.error  # no generic error box, no traceback
        assert any("课堂正在重新连接" in w.value for w in at.warning)
        assert str(redis_store.port) not in _visible(at) and "127.0.0.1" not in _visible(at)
    redis_store.start()  # with AOF, the room is still there
    teacher.run()  # the page's own poll, as its fragment reruns it
    student.run()
    student.run()
    for at in (teacher, student):
        assert not at.exception and not any("重新连接" in w.value for w in at.warning)
    after = STEPS[STEPS.index("scores") + 1]
    assert (
        ui.room.connection.rooms().get(code)["view"]["step"] == after
    )  # the press during the outage
    assert student.session_state["step"] == after  # ... reached the class


def test_a_new_teacher_on_a_dead_redis_gets_a_clear_message_not_a_traceback(redis_store):
    redis_store.kill()
    try:
        for lang, words, why in (
            ("en", "reconnecting", "Rooms cannot work on this server right now: the Redis server"),
            ("zh", "重新连接", "本服务器暂时无法使用课堂：Redis 服务器没有响应"),
        ):
            at = run_app("room", lang=lang)
            assert len(at.error) == 1 and at.error[0].value.startswith(why)  # the page says why
            at.button(key="room_open").click().run()
            assert not at.exception and len(at.error) == 1
            assert any(words in w.value for w in at.warning)
            assert str(redis_store.port) not in _visible(at) and "127.0.0.1" not in _visible(at)
    finally:
        redis_store.start()


def test_a_store_that_cannot_be_written_is_said_on_the_room_page(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("where the data folder should be")
    monkeypatch.setenv("ROOM_STORE", str(blocker / "rooms.sqlite3"))
    for lang, words in (("en", "Rooms cannot work on this server"), ("zh", "无法使用课堂")):
        at = run_app("room", lang=lang)
        assert not at.exception
        assert any(words in e.value and "rooms.sqlite3" in e.value for e in at.error)
        at.button(key="room_open").click().run()
        assert not at.exception  # pressing Open anyway: the reconnecting notice, no traceback


def test_two_teacher_tabs_pressing_next_in_turn_move_the_class_once_per_press():
    code, key = _open()
    first = run_app(room=code, key=key, lang="en", step="tokens")
    second = run_app(room=code, key=key, lang="en")  # a new tab: it takes the room's view
    assert second.session_state["step"] == "tokens"
    tabs = [first, second]
    for press in range(6):
        tabs[press % 2].button(key="next_step").click().run()
    assert ui.room.connection.rooms().get(code)["view"]["step"] == STEPS[STEPS.index("tokens") + 6]


def test_one_browser_one_answer_through_reloads_and_new_tabs(monkeypatch):
    code, key = _open()
    teacher = run_app(room=code, key=key, lang="en", step="softmax")
    teacher.button(key="room_ask").click().run()
    question = ui.room.connection.rooms().get(code)["question"]
    browser = "0123456789abcdef0123456789abcdef"  # the cookie this browser sends
    monkeypatch.setattr(ui.kit.browser, "_cookie", lambda name: browser)
    choice = f"choice_{question['id']}"
    student = run_app(room=code, lang="en")  # the first tab answers
    student.radio(key=choice).set_value(student.radio(key=choice).options[0]).run()
    student.button(key=f"send_{question['id']}").click().run()
    assert not student.exception
    for _ in range(2):  # a reload, a new tab: each a new session, shown the answer it sent
        student = run_app(room=code, lang="en")
        assert not student.exception
        assert not [r for r in student.radio if r.key == choice]  # not the choices again
        assert any(c.value.startswith("Sent: ") for c in student.caption)
    assert sum(ui.room.connection.rooms().answers(code, question["id"])) == 1
    monkeypatch.setattr(ui.kit.browser, "_cookie", lambda name: "")  # a browser without the cookie
    other = run_app(room=code, lang="en")
    assert other.session_state["_browser_cookie_due"]  # ... is given one, and answers once
    assert len(other.session_state["_browser_id"]) == 32


def test_failed_joins_wait_longer_after_a_few_tries(room_clock):
    at = run_app("room", lang="zh")

    def join(code: str) -> str:
        at.text_input(key="room_join_code").set_value(code).run()
        at.button(key="room_join_button").click().run()
        return " ".join(w.value for w in at.warning)

    for attempt in range(3):  # the free tries, one straight after another
        assert "没有代码为" in join(f"ZZZZ{attempt + 2}")
    room_clock.now += 0.5
    assert "请等待 2 秒后再试" in join("ZZZZ5")  # the fourth waits 2 s, and is not tried
    assert at.text_input(key="room_join_code").value == "ZZZZ5"  # what they typed stays
    room_clock.now += 1
    assert "请等待 1 秒后再试" in join("ZZZZ5")
    room_clock.now += 0.5
    assert "没有代码为 ZZZZ5" in join("ZZZZ5")  # tried once the wait is over: wrong again
    room_clock.now += 3.5
    assert "请等待 1 秒后再试" in join("ZZZZ6")  # ... so the next waits longer, 4 s
    room_clock.now += 0.5
    assert "没有代码为 ZZZZ6" in join("ZZZZ6")


LINK = re.compile(r"(?<!\\)\]\((?!\\)")  # a markdown link or image: ]( not escaped


@pytest.mark.parametrize(
    "sent",
    ["[x](http://evil.example/)", "![x](http://evil.example/x.png)", "<img src=x onerror=alert(1)>",
     "<b>bold</b>", "**bold**"],
)  # fmt: skip
def test_a_code_echoed_back_is_inert_and_cut_short(sent):
    for at in (run_app(room=sent, lang="en"), _joined(sent)):
        warnings = " ".join(w.value for w in at.warning)
        assert warnings and not LINK.search(warnings)
        assert "<img" not in warnings and "<b>" not in warnings and "EVIL.EXAMPLE" not in warnings
        assert not re.search(r"(?<!\\)\*\*", warnings)


def _joined(code: str):
    at = run_app("room", lang="en")
    at.text_input(key="room_join_code").set_value(code[:12]).run()
    at.button(key="room_join_button").click().run()
    return at


def test_the_teacher_sees_answers_against_connected_when_they_disagree():
    code, key = _open()
    teacher = run_app(room=code, key=key, lang="en", step="softmax")
    teacher.button(key="room_ask").click().run()
    question = ui.room.connection.rooms().get(code)["question"]
    for browser in ("b1", "b2", "b3"):
        ui.room.connection.rooms().heartbeat(code, browser)
    ui.room.connection.rooms().answer(code, question["id"], "b1", 0)
    teacher.run()
    assert "Answered 1 / 3" in " ".join(c.value for c in teacher.caption)  # the strip
    teacher.toggle(key=f"show_answers_{question['id']}").set_value(True).run()
    assert _answers_title(teacher) == "1 answer · 3 connected"
    for browser in ("b2", "b3"):
        ui.room.connection.rooms().answer(code, question["id"], browser, 0)
    teacher.run()
    assert _answers_title(teacher) == "3 answers so far"  # all three connected answered
    zh = run_app(room=code, key=key, lang="zh", step="softmax")
    ui.room.connection.rooms().heartbeat(code, "b4")
    zh.run()
    assert "已答 3 / 4" in " ".join(c.value for c in zh.caption)
    zh.toggle(key=f"show_answers_{question['id']}").set_value(True).run()
    assert _answers_title(zh) == "已收到 3 个回答 · 已连接 4 人"


def _answers_title(at) -> str:
    titles = [c["layout"].get("title", {}).get("text", "") for c in charts(at)]
    (title,) = [t for t in titles if "answer" in t or "回答" in t]
    return title


def test_a_room_that_vanishes_under_the_teacher_says_so():
    code, key = _open()
    teacher = run_app(room=code, key=key, lang="zh", step="softmax")
    ui.room.connection.rooms().close(code)  # expired, or closed from another tab
    teacher.run()
    assert not teacher.exception and any(f"没有代码为 {code}" in w.value for w in teacher.warning)
