"""Rooms on both stores: codes and keys, the teacher's view, who is connected, questions and
their anonymous answers, expiry and bad codes; and every bound one person could break, attacked
as a mischievous student would (threads and a second process racing, a Redis killed mid-class)."""

import json
import multiprocessing
import threading

import pytest

from classroom import rooms as rooms_module
from classroom.rooms import CODE_PATTERN, ROOM_TTL, UNTAUGHT_TTL, RoomError, Rooms, join_wait
from classroom.store import open_store
from tests.support.rooms import race
from tests.support.rooms import sample_question as _question


def test_a_room_has_a_short_code_and_only_its_key_drives_it(store):
    rooms = Rooms(store)
    code, key = rooms.open("teacher")
    assert CODE_PATTERN.match(code) and len(key) >= 16
    assert rooms.is_teacher(code, key) and rooms.is_teacher(code.lower(), key)
    assert not rooms.is_teacher(code, key + "x") and not rooms.is_teacher(code, None)
    assert key not in str(rooms.get(code))  # only a hash of the key is stored
    for drive in (
        lambda k: rooms.publish(code, k, {"step": "softmax"}),
        lambda k: rooms.ask(code, k, _question()),
        lambda k: rooms.reveal(code, k),
    ):
        with pytest.raises(PermissionError):
            drive("not the key")
    assert rooms.get(code)["view"] == {} and rooms.get(code)["question"] is None


def test_students_see_the_teachers_view_and_its_version(store):
    rooms = Rooms(store)
    code, key = rooms.open("teacher")
    view = {"step": "softmax", "sentence": "我 喜欢 学习 语言", "d_model": 8, "focus": 2}
    version, shown = rooms.publish(code, key, view)
    assert shown == view and version == 1
    assert rooms.publish(code, key, view, seen=version) == (version, view)  # the same view
    assert rooms.get(code)["view"] == view
    assert rooms.publish(code, key, {**view, "step": "av"}, seen=version)[0] == version + 1


def test_a_second_teacher_tab_behind_the_room_takes_its_view_instead(store):
    rooms = Rooms(store)
    code, key = rooms.open("teacher")
    v1, _ = rooms.publish(code, key, {"step": "scores"})
    v2, _ = rooms.publish(code, key, {"step": "scaled"}, seen=v1)  # tab A moves on
    version, view = rooms.publish(code, key, {"step": "mask"}, seen=v1)  # tab B, behind
    assert (version, view) == (v2, {"step": "scaled"})  # B is told the room's view, not taken
    assert rooms.publish(code, key, {"step": "mask"}, seen=v2) == (v2 + 1, {"step": "mask"})


def test_wrong_and_expired_codes_are_told_apart(store, clock, later):
    rooms = Rooms(store, clock=clock)
    for code, error in (("", "bad_code"), ("AB", "bad_code"), ("ZZZZZ", "no_room")):
        with pytest.raises(RoomError) as raised:
            rooms.get(code)
        assert raised.value.code == error
    code, key = rooms.open("teacher")
    rooms.publish(code, key, {"step": "av"})
    later(ROOM_TTL - 600)
    rooms.publish(code, key, {"step": "softmax"})  # used again: the room lives ROOM_TTL from now
    later(ROOM_TTL - 600)
    assert rooms.get(code)["view"] == {"step": "softmax"}
    later(600)
    with pytest.raises(RoomError) as raised:
        rooms.get(code)
    assert raised.value.code == "no_room"


def test_a_room_nobody_taught_in_expires_sooner(store, clock, later):
    rooms = Rooms(store, clock=clock)
    untaught, _ = rooms.open("a")
    taught, key = rooms.open("b")
    rooms.publish(taught, key, {"step": "av"})  # a published view: the room lives ROOM_TTL
    later(UNTAUGHT_TTL - 60)
    assert rooms.get(untaught)["view"] == {}
    later(60)
    with pytest.raises(RoomError):
        rooms.get(untaught)
    assert rooms.get(taught)["view"] == {"step": "av"}


def test_a_browser_holds_one_open_room_opening_another_closes_it(store):
    rooms = Rooms(store)
    first, _ = rooms.open("browser-1")
    second, _ = rooms.open("browser-1")
    other, _ = rooms.open("browser-2")
    with pytest.raises(RoomError):
        rooms.get(first)
    assert rooms.get(second) and rooms.get(other)
    # the lockout as it was tried: 600 presses from 30 sessions leave 30 rooms, not 600
    race(lambda i: [rooms.open(f"session-{i}") for _ in range(20)], n=30)
    assert store.zcount("rooms") == 32


def test_a_full_store_evicts_idle_rooms_and_never_locks_a_teacher_out(store, clock, monkeypatch):
    monkeypatch.setattr(rooms_module, "MAX_ROOMS", 10)
    rooms = Rooms(store, clock=clock)
    code, key = rooms.open("real-teacher")
    rooms.publish(code, key, {"step": "softmax"})
    rooms.heartbeat(code, "a real student")  # a class is going on
    spam = []
    for i in range(200):  # 200 scripted sessions, a room each
        clock.now += 0.01
        spam.append(rooms.open(f"attacker-{i}")[0])
    assert store.zcount("rooms") <= 10
    assert rooms.get(code)["view"] == {"step": "softmax"}  # the class was never evicted
    late, _ = rooms.open("another-teacher")  # and a teacher who comes now still gets a room
    assert rooms.get(late)
    assert sum(1 for c in spam[-9:] if _exists(rooms, c)) >= 8  # the oldest went first
    for i in range(9):  # only when every room has students does the store say "full"
        c, _ = rooms.open(f"busy-{i}")
        rooms.heartbeat(c, f"student-{i}")
    rooms.heartbeat(late, "late's student")
    with pytest.raises(RoomError) as raised:
        rooms.open("one-too-many")
    assert raised.value.code == "full"


def _exists(rooms, code) -> bool:
    try:
        rooms.get(code)
        return True
    except RoomError:
        return False


def test_failed_joins_wait_longer_after_a_few_tries():
    assert [join_wait(n) for n in range(7)] == [0, 0, 0, 2, 4, 8, 16]
    assert join_wait(40) == 30


def test_connected_counts_browsers_seen_lately_and_prunes_the_rest(store, clock, monkeypatch):
    monkeypatch.setattr(rooms_module, "MAX_ALIVE", 50)
    rooms = Rooms(store, clock=clock)
    code, _ = rooms.open("teacher")
    for session in ("s1", "s2", "s3", "s1"):  # s1's second tab is the same browser
        rooms.heartbeat(code, session)
    assert rooms.connected(code) == 3
    clock.now += rooms_module.ALIVE_S + 0.5
    rooms.heartbeat(code, "s1")
    assert rooms.connected(code) == 1
    assert store.zcount(f"alive:{code}") == 1  # s2 and s3 pruned on that heartbeat
    for i in range(80):  # a fake crowd: the set holds at most MAX_ALIVE
        rooms.heartbeat(code, f"bot-{i}")
    assert rooms.connected(code) == 50
    clock.now += rooms_module.ALIVE_S + 0.5  # the bots stop: a real student counts at once
    rooms.heartbeat(code, "real")
    assert rooms.connected(code) == 1


def test_one_browser_one_answer_and_the_counts_add_up(store):
    rooms = Rooms(store)
    code, key = rooms.open("teacher")
    question = _question()
    qid = rooms.ask(code, key, question)

    def student(i):
        assert rooms.answer(code, qid, f"browser-{i}", i % len(question.choices))
        rooms.answer(code, qid, f"browser-{i}", question.answer)  # a changed mind replaces it
        rooms.answer(code, qid, f"browser-{i}", question.answer)  # a reload, a new tab

    race(student, n=40)
    counts = rooms.answers(code, qid)
    assert sum(counts) == 40 and counts[question.answer] == 40
    assert rooms.answer_of(code, qid, "browser-7") == question.answer  # a reload finds it
    assert rooms.answer_of(code, qid, "never-answered") is None
    rooms.reveal(code, key)
    assert rooms.get(code)["question"]["revealed"]
    assert not rooms.answer(code, qid, "late", 0)  # no answers after the reveal
    assert not rooms.answer(code, "old-question", "browser-1", 0)
    assert not rooms.answer(code, qid, "browser-1", 99)


def test_the_answer_cap_holds_under_a_race(store, monkeypatch):
    monkeypatch.setattr(rooms_module, "MAX_ANSWERS", 10)
    rooms = Rooms(store)
    code, key = rooms.open("teacher")
    qid = rooms.ask(code, key, _question())
    taken = race(lambda i: rooms.answer(code, qid, f"bot-{i}", 0), n=24)
    assert sum(taken) == 10 and sum(rooms.answers(code, qid)) == 10


def test_no_answer_is_taken_after_the_reveal_even_racing_it(store):
    rooms = Rooms(store)
    code, key = rooms.open("teacher")
    qid = rooms.ask(code, key, _question())
    stop, tried = threading.Event(), threading.Semaphore(0)
    after = []

    def students():
        i = 0
        while not stop.is_set():
            revealed = rooms.get(code)["question"]["revealed"]
            if rooms.answer(code, qid, f"s{i}", 0) and revealed:
                after.append(i)
            i += 1
            tried.release()

    def answers_tried(n):  # by the four students together, counted as they are sent
        assert all(tried.acquire(timeout=60) for _ in range(n))

    threads = [threading.Thread(target=students) for _ in range(4)]
    [thread.start() for thread in threads]
    answers_tried(40)  # the class is answering
    rooms.reveal(code, key)
    counted = sum(rooms.answers(code, qid))
    answers_tried(40)  # ... and goes on after the reveal
    stop.set()
    [thread.join() for thread in threads]
    assert counted > 0 and after == [] and sum(rooms.answers(code, qid)) == counted


def test_a_question_asked_while_the_view_changes_is_never_lost(store):
    rooms = Rooms(store)
    code, key = rooms.open("teacher")
    stop, lost = threading.Event(), []

    def teacher_tab_publishing():
        step = 0
        while not stop.is_set():
            rooms.publish(code, key, {"step": f"s{step}"})
            step += 1

    publisher = threading.Thread(target=teacher_tab_publishing)
    publisher.start()
    for i in range(60):
        qid = rooms.ask(code, key, _question(i))
        if rooms.get(code)["question"]["id"] != qid:
            lost.append(i)
    stop.set()
    publisher.join()
    assert lost == []
    assert len(rooms.get(code)["asked"]) == rooms_module.MAX_HISTORY  # 59 filed, the last 50 kept


def test_the_questions_asked_are_kept_with_their_counts(store):
    rooms = Rooms(store)
    code, key = rooms.open("teacher")
    first = _question(0)
    qid = rooms.ask(code, key, first)
    rooms.answer(code, qid, "a", first.answer)
    rooms.answer(code, qid, "b", (first.answer + 1) % len(first.choices))
    rooms.reveal(code, key)
    rooms.ask(code, key, _question(1))
    (entry,) = rooms.get(code)["asked"]
    assert entry["answer"] == first.answer and sum(entry["counts"]) == 2
    assert entry["counts"][first.answer] == 1
    assert store.hgetall(f"answers:{code}:{qid}") == {}  # the old answers left the store


def _publisher(url, code, key, tab, presses, out):
    """One teacher tab in its own process: press, and when behind take the room's view."""
    rooms = Rooms(open_store(url))
    seen, taken = None, []
    for i in range(presses):
        view = {"step": f"{tab}-{i}"}
        version, shown = rooms.publish(code, key, view, seen=seen)
        taken.append((version, json.dumps(shown, sort_keys=True)))
        seen = version
    out.put(taken)


@pytest.mark.parametrize("workers", ["threads", "processes"])
def test_a_version_names_exactly_one_view_under_concurrent_publishes(store, workers):
    url = (
        str(store.path)
        if hasattr(store, "path")
        else store._redis.connection_pool.connection_kwargs
    )
    url = str(store.path) if hasattr(store, "path") else _redis_url(store)
    rooms = Rooms(store)
    code, key = rooms.open("teacher")
    if workers == "threads":
        import queue

        out = queue.Queue()
        runners = [threading.Thread(target=_publisher, args=(url, code, key, t, 150, out))
                   for t in range(6)]  # fmt: skip
    else:
        context = multiprocessing.get_context("spawn")
        out = context.Queue()
        runners = [context.Process(target=_publisher, args=(url, code, key, t, 150, out))
                   for t in range(2)]  # fmt: skip
    [runner.start() for runner in runners]
    seen = [pair for _ in runners for pair in out.get(timeout=120)]
    [runner.join() for runner in runners]
    views_of = {}
    for version, view in seen:
        views_of.setdefault(version, set()).add(view)
    assert all(len(views) == 1 for views in views_of.values()), "a version named two views"
    final = rooms.get(code)
    assert views_of[final["version"]] == {json.dumps(final["view"], sort_keys=True)}
    assert sorted(views_of) == list(range(min(views_of), final["version"] + 1))  # none skipped


def _redis_url(store) -> str:
    kwargs = store._redis.connection_pool.connection_kwargs
    return f"redis://{kwargs['host']}:{kwargs['port']}/{kwargs.get('db', 0)}"


def test_a_class_survives_a_redis_restart(redis_server):
    rooms = Rooms(open_store(redis_server.url))
    rooms.store._redis.flushdb()
    code, key = rooms.open("teacher")
    rooms.publish(code, key, {"step": "softmax", "sentence": "猫 坐 在"})
    qid = rooms.ask(code, key, _question())
    rooms.answer(code, qid, "student-1", 0)
    redis_server.kill()  # as a crash: SIGKILL
    redis_server.start()
    room = rooms.get(code)
    assert room["view"]["sentence"] == "猫 坐 在" and room["question"]["id"] == qid
    assert rooms.is_teacher(code, key) and sum(rooms.answers(code, qid)) == 1
    assert rooms.answer(code, qid, "student-2", 0)  # the class goes on


def test_closing_a_question_ends_it_everywhere_and_files_it(store):
    rooms = Rooms(store)
    code, key = rooms.open("teacher")
    question = _question()
    qid = rooms.ask(code, key, question)
    rooms.answer(code, qid, "a", question.answer)
    with pytest.raises(PermissionError):
        rooms.close_question(code, "not the key")
    rooms.close_question(code, key)
    room = rooms.get(code)
    assert room["question"] is None and sum(room["asked"][0]["counts"]) == 1
    assert not rooms.answer(code, qid, "late", 0)  # a closed question takes no answer
    rooms.close_question(code, key)  # nothing open: nothing changes
    assert len(rooms.get(code)["asked"]) == 1
