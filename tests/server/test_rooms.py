"""Rooms on both stores: codes and keys, the teacher's view, who is connected, questions and
their anonymous answers, expiry and bad codes."""

import threading
import time

import numpy as np
import pytest

import core
from classroom import rooms as rooms_module
from classroom.rooms import CODE_PATTERN, RoomError, Rooms
from core.questions import make_question
from tests.server.test_store import redis_url, store  # noqa: F401  (fixtures)


def _question():
    X = np.random.default_rng(0).normal(size=(4, 4))
    W = core.init_weights(core.AttentionConfig(d_model=4, n_heads=2))
    trace = core.attention(X, W, 2, core.causal_mask(4))
    fields = {name: getattr(trace, name) for name in ("Q", "K", "V", "A", "output")}
    return make_question("row_sum", "softmax", fields, list("abcd"), 0, 2, core.causal_mask(4))


def test_a_room_has_a_short_code_and_only_its_key_drives_it(store):  # noqa: F811
    rooms = Rooms(store)
    code, key = rooms.open()
    assert CODE_PATTERN.match(code) and len(key) >= 16
    assert rooms.is_teacher(code, key) and rooms.is_teacher(code.lower(), key)
    assert not rooms.is_teacher(code, key + "x") and not rooms.is_teacher(code, None)
    assert key not in str(rooms.get(code))  # only a hash of the key is stored
    with pytest.raises(PermissionError):
        rooms.publish(code, "not the key", {"step": "softmax"})


def test_students_see_the_teachers_view_and_its_version(store):  # noqa: F811
    rooms = Rooms(store)
    code, key = rooms.open()
    view = {"step": "softmax", "sentence": "我 喜欢 学习 语言", "d_model": 8, "focus": 2}
    version = rooms.publish(code, key, view)
    assert rooms.publish(code, key, view) == version  # the same view: the same version
    assert rooms.get(code)["view"] == view
    assert rooms.publish(code, key, {**view, "step": "av"}) == version + 1


def test_wrong_and_expired_codes_are_told_apart(store, monkeypatch):  # noqa: F811
    rooms = Rooms(store)
    for code, error in (("", "bad_code"), ("AB", "bad_code"), ("ZZZZZ", "no_room")):
        with pytest.raises(RoomError) as raised:
            rooms.get(code)
        assert raised.value.code == error
    monkeypatch.setattr(rooms_module, "ROOM_TTL", 0.3)
    code, _ = rooms.open()
    time.sleep(0.4)
    with pytest.raises(RoomError) as raised:
        rooms.get(code)
    assert raised.value.code == "no_room"


def test_the_number_of_rooms_is_bounded(store, monkeypatch):  # noqa: F811
    monkeypatch.setattr(rooms_module, "MAX_ROOMS", 2)
    rooms = Rooms(store)
    rooms.open()
    rooms.open()
    with pytest.raises(RoomError) as raised:
        rooms.open()
    assert raised.value.code == "full"


def test_connected_students_are_those_seen_lately(store, monkeypatch):  # noqa: F811
    monkeypatch.setattr(rooms_module, "ALIVE_S", 0.3)
    rooms = Rooms(store)
    code, _ = rooms.open()
    for session in ("s1", "s2", "s3"):
        rooms.heartbeat(code, session)
    assert rooms.connected(code) == 3
    time.sleep(0.35)
    rooms.heartbeat(code, "s1")
    assert rooms.connected(code) == 1


def test_a_class_answers_at_once_one_answer_each_and_the_counts_add_up(store):  # noqa: F811
    rooms = Rooms(store)
    code, key = rooms.open()
    question = _question()
    qid = rooms.ask(code, key, question)
    barrier = threading.Barrier(40)

    def student(i):
        barrier.wait()
        assert rooms.answer(code, qid, f"s{i}", i % len(question.choices))
        rooms.answer(code, qid, f"s{i}", question.answer)  # a changed mind replaces the first

    threads = [threading.Thread(target=student, args=(i,)) for i in range(40)]
    [thread.start() for thread in threads]
    [thread.join() for thread in threads]
    counts = rooms.answers(code, qid)
    assert sum(counts) == 40 and counts[question.answer] == 40
    rooms.reveal(code, key)
    assert rooms.get(code)["question"]["revealed"]
    assert not rooms.answer(code, qid, "late", 0)  # no answers after the reveal
    assert not rooms.answer(code, "old-question", "s1", 0)


def test_answers_per_question_are_bounded(store, monkeypatch):  # noqa: F811
    monkeypatch.setattr(rooms_module, "MAX_ANSWERS", 3)
    rooms = Rooms(store)
    code, key = rooms.open()
    qid = rooms.ask(code, key, _question())
    assert [rooms.answer(code, qid, f"s{i}", 0) for i in range(5)] == [True] * 3 + [False] * 2
