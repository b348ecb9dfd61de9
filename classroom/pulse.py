"""The room's pulse over plain HTTP, so that an idle student costs the server no script run.

``GET /room/pulse?code=CODE`` (served by serve.py) answers ``{"pulse": "…"}``: one short string
of what a student's page shows of the room (the teacher's view, the lock, the question asked,
revealed or closed). A student's page asks every POLL_S seconds from the browser, and reruns
only when the string differs from the one it was drawn with (ui/room/pulse.py). The asking
browser (its id cookie) is counted as connected, and as exploring while its page says it is away
from the teacher's view (``&away=1``), at most every HEARTBEAT_S seconds.

``"gone"`` (404) says the room closed or expired, ``"down"`` (503) that the store fails; the
page reruns on either and says so. Nothing here names the room's key or anyone's answers.
"""

import re
import threading
import time
from collections.abc import Callable

from classroom.rooms import RoomError, Rooms, normal_code
from classroom.store import StoreError, shared_store

PATH = "/room/pulse"
ENV = "SELF_ATTENTION_PULSE"  # set by serve.py: this process serves PATH
POLL_S = 1.0  # the browser asks this often
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
        self._lock = threading.Lock()

    @property
    def rooms(self) -> Rooms:
        if self._rooms is None:
            self._rooms = Rooms(shared_store())
        return self._rooms

    def answer(self, code: str, browser: str, away: bool = False) -> tuple[int, dict]:
        """(HTTP status, JSON body) for a browser with id ``browser`` asking about ``code``;
        ``away``: its page is not following the teacher (counted as exploring)."""
        try:
            room = self.rooms.get(code)
            if BROWSER_ID.match(browser or "") and self._beat_due(normal_code(code), browser):
                self.rooms.heartbeat(code, browser)
                if away:
                    self.rooms.exploring(code, browser, True)
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
