"""The room's pulse (classroom/pulse.py) on both stores: it changes exactly when a student's page
has to redraw, says when the room is gone or the store is down, and counts the browser that asks
as connected (or exploring) at most every HEARTBEAT_S seconds, as a heartbeat does; a page that
already shows the pulse waits for the next one."""

import asyncio
import secrets

from classroom.pulse import HEARTBEAT_S, WATCH_S, Pulse
from classroom.rooms import Rooms
from classroom.store import RedisStore, SQLiteStore, StoreError
from tests.support.rooms import sample_question


class Ticking:
    """A monotonic clock for the pulse's heartbeat spacing, moved by the test."""

    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_pulse_changes_exactly_when_a_students_page_must_redraw(store, clock):
    rooms = Rooms(store, clock=clock)
    code, key = rooms.open("teacher")
    pulse = Pulse(rooms)
    seen = [pulse.answer(code, "")]
    assert seen[0][0] == 200 and isinstance(seen[0][1]["pulse"], str)
    assert pulse.answer(code.lower(), "") == seen[0]  # the code as a student may type it
    assert pulse.answer(code, "") == seen[0]  # nothing happened: the same pulse

    def after(change) -> str:
        change()
        status, body = pulse.answer(code, "")
        assert status == 200
        assert body["pulse"] != seen[-1][1]["pulse"], change  # (a page compares with its own)
        seen.append((status, body))
        return body["pulse"]

    version, _ = rooms.publish(code, key, {"step": "softmax"})
    after(lambda: None)  # the first view
    same = pulse.answer(code, "")[1]["pulse"]
    rooms.publish(code, key, {"step": "softmax"}, seen=version)  # the same view again
    assert pulse.answer(code, "")[1]["pulse"] == same
    after(lambda: rooms.publish(code, key, {"step": "av"}, seen=version))  # a new step
    after(lambda: rooms.lock(code, key, True))
    after(lambda: rooms.ask(code, key, sample_question()))
    rooms.answer(code, rooms.get(code)["question"]["id"], secrets.token_hex(16), 1)
    assert pulse.answer(code, "")[1]["pulse"] == seen[-1][1]["pulse"]  # answers are not shown
    after(lambda: rooms.reveal(code, key))
    after(lambda: rooms.close_question(code, key))
    after(lambda: rooms.lock(code, key, False))
    assert key not in str(seen)  # nothing of the key


def test_a_gone_room_and_a_failing_store_are_told(store, clock):
    rooms = Rooms(store, clock=clock)
    code, _key = rooms.open("teacher")
    pulse = Pulse(rooms)
    assert pulse.answer("ZZZZZ", "") == (404, {"pulse": "gone"})
    assert pulse.answer("not a code", "") == (404, {"pulse": "gone"})
    rooms.close(code)
    assert pulse.answer(code, "") == (404, {"pulse": "gone"})

    class Down:
        def get(self, key):
            raise StoreError("redis_down")

    assert Pulse(Rooms(Down())).answer(code, "") == (503, {"pulse": "down"})


def test_the_browser_that_asks_is_counted_every_few_seconds(store, clock):
    rooms, ticking = Rooms(store, clock=clock), Ticking()
    code, key = rooms.open("teacher")
    rooms.publish(code, key, {"step": "softmax"})
    pulse = Pulse(rooms, clock=ticking)
    here, away = secrets.token_hex(16), secrets.token_hex(16)
    pulse.answer(code, here)
    pulse.answer(code, away, away=True)
    pulse.answer(code, "not an id")  # no cookie of ours: asked, not counted
    pulse.answer(code, "../" + here)
    assert rooms.connected(code) == 2 and rooms.explorers(code) == 1

    writes = []
    rooms.heartbeat = lambda *args: writes.append(args)  # count the store's writes from here
    for _ in range(10):  # a second's polls, and more: no write until HEARTBEAT_S has passed
        pulse.answer(code, here)
        ticking.now += HEARTBEAT_S / 20
    assert writes == []
    ticking.now += HEARTBEAT_S
    pulse.answer(code, here)
    assert writes == [(code, here)]


def _other_process(store, clock, request):
    """The same rooms as another process (a replica) sees them: its own store object."""
    if isinstance(store, SQLiteStore):
        return Rooms(SQLiteStore(store.path, clock=clock), clock=clock)
    return Rooms(RedisStore(request.getfixturevalue("redis_url")), clock=clock)


def test_a_page_that_shows_the_pulse_is_answered_when_it_changes(store, clock, request):
    """The question is held while the pulse is the page's own: answered the moment another
    process changes the room (within a read or two, WATCH_S apart), else after the hold with
    the same pulse; any other pulse, and a gone room, are answered at once."""
    rooms = Rooms(store, clock=clock)
    code, key = rooms.open("teacher")
    pulse = Pulse(rooms)
    shown = pulse.answer(code, "")[1]["pulse"]
    teacher = _other_process(store, clock, request)

    async def timed(seen, hold=1.0, change=None, after=0.3):
        loop = asyncio.get_running_loop()
        if change:
            loop.call_later(after, lambda: loop.run_in_executor(None, change))
        start = loop.time()
        status, body = await pulse.held(code, "", seen=seen, hold=hold)
        return status, body["pulse"], loop.time() - start

    status, now, took = asyncio.run(timed("an older pulse"))
    assert (status, now) == (200, shown) and took < 0.2  # not the page's own: at once
    status, now, took = asyncio.run(timed(shown, hold=0.6))
    assert (status, now) == (200, shown) and 0.6 <= took < 0.9  # held, then the same
    publish = lambda: teacher.publish(code, key, {"step": "av"})  # noqa: E731
    status, now, took = asyncio.run(timed(shown, hold=3.0, change=publish))
    assert status == 200 and now != shown and now == pulse.answer(code, "")[1]["pulse"]
    assert 0.3 <= took < 0.3 + 2 * WATCH_S + 0.3, took  # the change, not the hold, ended it
    status, now, took = asyncio.run(timed(now, hold=3.0, change=lambda: teacher.close(code)))
    assert (status, now) == (404, "gone") and took < 0.3 + 2 * WATCH_S + 0.3, took


def test_sixty_waiting_pages_cost_one_read_of_the_room_every_watch(store, clock):
    """Sixty pages hold their questions at once: each ask is read once (its heartbeat), and
    while they wait the process reads the room once every WATCH_S for all of them."""
    rooms = Rooms(store, clock=clock)
    code, key = rooms.open("teacher")
    pulse = Pulse(rooms)
    shown = pulse.answer(code, "")[1]["pulse"]
    reads, get = [], rooms.get
    rooms.get = lambda *args: reads.append(args) or get(*args)

    async def sixty():
        loop = asyncio.get_running_loop()
        start = loop.time()
        loop.call_later(
            0.6, lambda: loop.run_in_executor(None, rooms.publish, code, key, {"step": "av"})
        )
        answers = await asyncio.gather(
            *(pulse.held(code, secrets.token_hex(16), seen=shown, hold=3.0) for _ in range(60))
        )
        return answers, loop.time() - start

    answers, took = asyncio.run(sixty())
    assert all(status == 200 and body["pulse"] != shown for status, body in answers)
    assert took < 0.6 + 2 * WATCH_S + 0.5, took  # every page hears of the change at once
    assert 60 <= len(reads) <= 60 + took / WATCH_S + 3, len(reads)
