"""The room's pulse (classroom/pulse.py) on both stores: it changes exactly when a student's page
has to redraw, says when the room is gone or the store is down, and counts the browser that asks
as connected (or exploring) at most every HEARTBEAT_S seconds, as a heartbeat does."""

import secrets

from classroom.pulse import HEARTBEAT_S, Pulse
from classroom.rooms import Rooms
from classroom.store import StoreError
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
