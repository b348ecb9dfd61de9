"""The room's pulse over plain HTTP, so that an idle student costs the server no script run.

``GET /room/pulse?code=CODE`` (served by serve.py) answers ``{"pulse": "…"}``: one short string
of what a student's page shows of the room (the teacher's view, the lock, the question asked,
revealed or closed). A student's page reruns only when the string differs from the one it was
drawn with (ui/room/pulse.py). With ``&seen=PULSE`` (the one the page shows) the question is held
until the pulse changes, or for HOLD_S seconds: a teacher's change reaches every waiting page at
once, and an idle page asks about every HOLD_S seconds. While pages wait, the process reads each
room's pulse once every WATCH_S seconds for all of them. The asking browser (its id cookie) is
counted as connected, and as exploring while its page says it is away from the teacher's view
(``&away=1``), at most every HEARTBEAT_S seconds.

``"gone"`` (404) says the room closed or expired, ``"down"`` (503) that the store fails; neither
is held, and the page reruns on either and says so. Nothing here names the room's key or anyone's
answers.
"""

import asyncio
import re
import threading
import time
from collections.abc import Callable

from classroom.rooms import RoomError, Rooms, normal_code
from classroom.store import StoreError, shared_store

PATH = "/room/pulse"
ENV = "SELF_ATTENTION_PULSE"  # set by serve.py: this process serves PATH
POLL_S = 1.0  # the browser asks this often when it cannot wait (a failing store, an old page)
HOLD_S = 2.5  # an unchanged pulse is answered after this (below ALIVE_S: each ask is a heartbeat)
WATCH_S = 0.15  # while pages wait, their room's pulse is read this often (once for them all)
HEARTBEAT_S = 2.0  # a browser is counted as connected this often (ALIVE_S is 6 s)
BROWSER_ID = re.compile(r"^[0-9a-f]{32}$")  # ui/kit/browser.py's cookie
MAX_REMEMBERED = 5000  # browsers whose last heartbeat this process remembers


def pulse(room: dict) -> str:
    """What a student's page shows of ``room`` (a Rooms.get() dict), as one short string: it
    changes exactly when that page has to redraw."""
    question = room.get("question") or {}
    locked, revealed = int(bool(room.get("locked"))), int(bool(question.get("revealed")))
    return f"{room['version']}.{locked}.{question.get('id', '-')}.{revealed}"


class Pulse:
    """The answers of PATH for one process: the room's pulse, and a heartbeat for the browser."""

    def __init__(self, rooms: Rooms | None = None, clock: Callable[[], float] = time.monotonic):
        self._rooms, self.clock = rooms, clock
        self._beats: dict[tuple[str, str], float] = {}
        self._watches: dict[str, _Watch] = {}  # the rooms that pages of this process wait on
        self._lock = threading.Lock()

    @property
    def rooms(self) -> Rooms:
        if self._rooms is None:
            self._rooms = Rooms(shared_store())
        return self._rooms

    def answer(self, code: str, browser: str, away: bool = False) -> tuple[int, dict]:
        """(HTTP status, JSON body) for a browser with id ``browser`` asking about ``code``;
        ``away``: its page is not following the teacher (counted as exploring)."""

        def beat(room: dict) -> None:
            if BROWSER_ID.match(browser or "") and self._beat_due(normal_code(code), browser):
                self.rooms.heartbeat(code, browser)
                if away:
                    self.rooms.exploring(code, browser, True)

        return self._told(code, beat)

    async def held(
        self, code: str, browser: str, away: bool = False, seen: str = "", hold: float = HOLD_S
    ) -> tuple[int, dict]:
        """answer(), held while the room's pulse is still ``seen`` (the page's own), for at most
        ``hold`` seconds. The store is read on worker threads: the event loop never waits on it."""
        status, body = await asyncio.to_thread(self.answer, code, browser, away)
        if status != 200 or body["pulse"] != seen:
            return status, body
        try:
            return await asyncio.wait_for(self._change(normal_code(code), seen), hold)
        except TimeoutError:
            return status, body

    async def _change(self, code: str, seen: str) -> tuple[int, dict]:
        """The room's next pulse that is not ``seen`` (or its gone or down)."""
        loop = asyncio.get_running_loop()
        watch = self._watches.get(code)
        if watch is None or watch.loop is not loop:
            if len(self._watches) >= MAX_REMEMBERED:
                self._watches = {c: w for c, w in self._watches.items() if w.waiting}
            watch = self._watches[code] = _Watch(loop)
        watch.waiting += 1
        try:
            if watch.task is None or watch.task.done():
                watch.task = loop.create_task(self._watch(code, watch))
            if watch.last and watch.last[1]["pulse"] != seen:  # read while this page asked:
                now = await asyncio.to_thread(self._told, code)  # which came last? read again
                if now[0] != 200 or now[1]["pulse"] != seen:
                    return now
            while True:
                status, body = await asyncio.shield(watch.next)
                if status != 200 or body["pulse"] != seen:
                    return status, body
        finally:
            watch.waiting -= 1

    async def _watch(self, code: str, watch: "_Watch") -> None:
        """Read the room every WATCH_S while a page waits on it; wake them all on a change."""
        while watch.waiting:
            await asyncio.sleep(WATCH_S)
            watch.read(await asyncio.to_thread(self._told, code))

    def _told(self, code: str, then: Callable[[dict], None] | None = None) -> tuple[int, dict]:
        """(status, body) of the room's pulse now, after ``then(room)`` if given."""
        try:
            room = self.rooms.get(code)
            if then:
                then(room)
        except RoomError:
            return 404, {"pulse": "gone"}
        except StoreError:
            return 503, {"pulse": "down"}
        return 200, {"pulse": pulse(room)}

    def _beat_due(self, code: str, browser: str) -> bool:
        now, key = self.clock(), (code, browser)
        with self._lock:
            if now - self._beats.get(key, -HEARTBEAT_S) < HEARTBEAT_S:
                return False
            if len(self._beats) >= MAX_REMEMBERED:  # a bound: forget the oldest half
                for old in sorted(self._beats, key=self._beats.get)[: MAX_REMEMBERED // 2]:
                    del self._beats[old]
            self._beats[key] = now
        return True


class _Watch:
    """One room's pulse as read for the pages of one process that wait on it: ``next`` is done
    with the first reading that differs from the last one (a change, or the room gone)."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop, self.waiting, self.task = loop, 0, None
        self.last: tuple[int, dict] | None = None
        self.next: asyncio.Future = loop.create_future()

    def read(self, now: tuple[int, dict]) -> None:
        if now != self.last:
            self.last = now
            self.next.set_result(now)
            self.next = self.loop.create_future()
