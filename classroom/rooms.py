"""Rooms: a short code for students, a secret key for the teacher, the teacher's view, who is
connected, one question at a time and its anonymous answers. Everything lives in the store.

What one person can do is bounded (tests/server/test_rooms.py attacks each bound):
- a browser holds one open room: opening another closes the last one;
- a room nobody has taught in (no view published) expires after UNTAUGHT_TTL, and a full store
  evicts the longest-idle rooms that have no connected students before it refuses a new one;
- a browser has one answer per question, and one row in the room's "connected" set;
- failed joins wait longer after a few tries (``join_wait``).

The store's keys, for room CODE:
    room:CODE           JSON: key hash, view, version, question, the questions asked so far
    rooms               sorted set: each room's code by last use (untaught rooms sort first)
    owner:BROWSER       the code of the room this browser opened last
    alive:CODE          sorted set: the browsers seen, by when
    open:CODE           the id of the question taking answers, while it does
    exploring:CODE      sorted set: the browsers away from the teacher's view, by when
    lost:CODE           sorted set: the browsers that pressed "I'm lost", by the view's version
    answers:CODE:ID     hash: browser -> the index of its choice
    practice:CODE:STEP, practice_wrong:CODE     the class's practice (classroom/practice.py)

Memory (Redis MEMORY USAGE, bench/room_store.py): a class of 60 with a question answered is about
5 kB; a room at every cap (MAX_ALIVE browsers, MAX_ANSWERS answers) about 70 kB, so the worst
case, every room at every cap, is MAX_ROOMS × 70 kB ≈ 70 MB; and a room's practice at every cap
(classroom/practice.py) about 740 kB more, ≈ 0.8 GB over MAX_ROOMS rooms.
"""

import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Callable
from dataclasses import asdict

import classroom.clock
from core.lessons.questions import Question
from core.practice import STEPS as PRACTICE_STEPS

ROOM_TTL = 12 * 3600  # a room not used for this long expires
UNTAUGHT_TTL = 15 * 60  # ... and one nobody has taught in (no view published) after this long
MAX_ROOMS = 1000  # per store: a memory bound (see above), evicting idle rooms before refusing
MAX_ANSWERS = 500  # per question: a memory bound no class meets
MAX_ALIVE = 500  # rows in a room's connected set
MAX_HISTORY = 50  # questions remembered for the class's summary
ALIVE_S = 6.0  # a student seen within this many seconds counts as connected
FREE_JOIN_TRIES = 3  # failed joins before each further try waits (2, 4, 8 … 30 s)
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I/L to misread on a projector
CODE_LENGTH = 5
CODE_PATTERN = re.compile(rf"^[{CODE_ALPHABET}]{{{CODE_LENGTH}}}$")


class RoomError(Exception):
    """``code``: "full", "bad_code" or "no_room", for a message in the learner's language."""

    def __init__(self, code: str):
        super().__init__(code)
        self.code = code


def normal_code(text: str) -> str:
    return (text or "").strip().upper()


def join_wait(failures: int) -> float:
    """Seconds a session waits before its next join, after ``failures`` failed ones in a row."""
    if failures < FREE_JOIN_TRIES:
        return 0.0
    return float(min(30, 2 ** (failures - FREE_JOIN_TRIES + 1)))


def practice_keys(code: str) -> list[str]:
    """The store's keys of a room's practice (classroom/practice.py), gone with the room."""
    return [*(f"practice:{code}:{step}" for step in PRACTICE_STEPS), f"practice_wrong:{code}"]


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _browser(browser: str) -> str:
    """What the store keeps of a browser's id: a hash, so that no stored value lets anyone act
    as that browser."""
    return _hash(f"browser:{browser}")[:20]


class Rooms:
    def __init__(self, store, clock: Callable[[], float] = classroom.clock.now):
        self.store, self.clock = store, clock

    # the room itself
    def open(self, owner: str) -> tuple[str, str]:
        """A new room for the browser ``owner``: (code for the students, secret key for the
        teacher). The room this browser opened before is closed."""
        owned = f"owner:{_browser(owner)}"
        previous = self.store.get(owned)
        if previous:
            self.close(previous)
        self._make_room_for_one()
        key = secrets.token_urlsafe(16)
        room = {"key_hash": _hash(key), "view": {}, "version": 0, "question": None, "asked": []}
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if self.store.set_new(f"room:{code}", json.dumps(room), UNTAUGHT_TTL):
                break
        self._used(code, taught=False)
        self.store.set(owned, code, ROOM_TTL)
        return code, key

    def _used(self, code: str, taught: bool) -> None:
        """Mark the room as used now in the index (an untaught room sorts before every taught
        one, so that eviction takes it first)."""
        now = self.clock()
        score = now if taught else now - 2 * ROOM_TTL
        self.store.zadd_capped("rooms", code, score, 10**9, ROOM_TTL, drop_below=now - 3 * ROOM_TTL)

    def _make_room_for_one(self) -> None:
        """Below MAX_ROOMS: forget expired rooms, then evict the longest-idle ones nobody is
        connected to; "full" only when every room has students."""
        while self.store.zcount("rooms") >= MAX_ROOMS:
            freed = False
            for code, _ in self.store.zlowest("rooms", MAX_ROOMS + 1):  # longest idle first
                if self.store.get(f"room:{code}") is None or self.connected(code) == 0:
                    self.close(code)
                    freed = True
                    break
            if not freed:
                raise RoomError("full")

    def close(self, code: str) -> None:
        """The room and everything it holds, gone."""
        code = normal_code(code)
        current = self.store.get(f"open:{code}")
        keys = [
            f"room:{code}",
            f"alive:{code}",
            f"open:{code}",
            f"exploring:{code}",
            f"lost:{code}",
            *practice_keys(code),
        ]
        self.store.delete(*keys, *([f"answers:{code}:{current}"] if current else []))
        self.store.zrem("rooms", code)

    def get(self, code: str) -> dict:
        """The room, or RoomError: "bad_code" (not a code's shape) or "no_room" (none, expired)."""
        code = normal_code(code)
        if not CODE_PATTERN.match(code):
            raise RoomError("bad_code")
        raw = self.store.get(f"room:{code}")
        if raw is None:
            raise RoomError("no_room")
        return json.loads(raw)

    def is_teacher(self, code: str, key: str | None) -> bool:
        """Whether ``key`` drives the room (compared in constant time, as hashes)."""
        if not key:
            return False
        try:
            room = self.get(code)
        except RoomError:
            return False
        return hmac.compare_digest(_hash(key), room["key_hash"])

    def _change(self, code: str, key: str, change: Callable[[dict], bool]) -> dict:
        """One atomic step on the room: ``change(room)`` edits it in place and says whether to
        write it; only the teacher's key may. Returns the room as it is after the step."""
        code = normal_code(code)
        if not CODE_PATTERN.match(code):
            raise RoomError("bad_code")
        after = {}

        def step(raw):
            if raw is None:
                raise RoomError("no_room")
            room = json.loads(raw)
            if not hmac.compare_digest(_hash(key or ""), room["key_hash"]):
                raise PermissionError("only the teacher's key drives a room")
            write = change(room)
            after.clear()
            after.update(room)
            return json.dumps(room) if write else None

        self.store.update(f"room:{code}", step, ROOM_TTL)
        return after

    # the teacher's view, followed by the students
    def publish(self, code: str, key: str, view: dict, seen: int | None = None) -> tuple[int, dict]:
        """Set the view students follow, if the room is still at version ``seen`` (the one this
        teacher's tab last took; None: whatever it is). Returns the room's (version, view)
        after the step: another tab's newer view wins, and this tab should take it. The view's
        fields are the app's (ui/room/connection.py's VIEW_FIELDS)."""

        def change(room):
            if view != room["view"] and (seen is None or seen == room["version"]):
                room["view"], room["version"] = view, room["version"] + 1
            return True  # written even when unchanged: it keeps the room alive (ROOM_TTL)

        room = self._change(code, key, change)
        self._used(normal_code(code), taught=True)
        return room["version"], room["view"]

    # who is here
    def heartbeat(self, code: str, browser: str) -> None:
        now = self.clock()
        self.store.zadd_capped(
            f"alive:{normal_code(code)}", _browser(browser), now, MAX_ALIVE, ROOM_TTL,
            drop_below=now - ALIVE_S,
        )  # fmt: skip

    def connected(self, code: str) -> int:
        """Browsers seen in the last ALIVE_S seconds."""
        return self.store.zcount(f"alive:{normal_code(code)}", self.clock() - ALIVE_S)

    def exploring(self, code: str, browser: str, on: bool) -> None:
        """Whether this browser is away from the teacher's view (in a heartbeat's time)."""
        now, key = self.clock(), f"exploring:{normal_code(code)}"
        if on:
            self.store.zadd_capped(key, _browser(browser), now, MAX_ALIVE, ROOM_TTL,
                                   drop_below=now - ALIVE_S)  # fmt: skip
        else:
            self.store.zrem(key, _browser(browser))

    def explorers(self, code: str) -> int:
        """Connected browsers away from the teacher's view."""
        return self.store.zcount(f"exploring:{normal_code(code)}", self.clock() - ALIVE_S)

    def lost(self, code: str, browser: str, version: int) -> None:
        """This browser is lost at the view ``version``: counted until the teacher moves on."""
        self.store.zadd_capped(f"lost:{normal_code(code)}", _browser(browser), version,
                               MAX_ALIVE, ROOM_TTL, drop_below=version)  # fmt: skip

    def lost_count(self, code: str, version: int) -> int:
        """Browsers lost at the view ``version`` (a new view clears the count)."""
        return self.store.zcount(f"lost:{normal_code(code)}", version)

    def lock(self, code: str, key: str, on: bool) -> None:
        """Everyone follows: students cannot leave the teacher's view while it is on."""

        def change(room):
            room["locked"] = bool(on)
            return True

        self._change(code, key, change)

    # one question at a time
    def ask(self, code: str, key: str, question: Question) -> str:
        question_id = secrets.token_hex(4)
        code = normal_code(code)
        old = {}

        def change(room):
            old.update(room["question"] or {})
            room["question"] = {"id": question_id, "revealed": False, **asdict(question)}
            return True

        self._change(code, key, change)
        self.store.set(f"open:{code}", question_id, ROOM_TTL)
        if old:
            self._file_away(code, key, old)
        return question_id

    def reveal(self, code: str, key: str) -> None:
        code = normal_code(code)
        self.store.delete(f"open:{code}")  # first: no answer is taken after this

        def change(room):
            if not room["question"] or room["question"]["revealed"]:
                return False
            room["question"]["revealed"] = True
            return True

        self._change(code, key, change)

    def close_question(self, code: str, key: str) -> None:
        """The question ends: no more answers, off every screen, filed with its counts."""
        code = normal_code(code)
        self.store.delete(f"open:{code}")
        closed = {}

        def change(room):
            closed.update(room["question"] or {})
            room["question"] = None
            return bool(closed)

        self._change(code, key, change)
        if closed:
            self._file_away(code, key, closed)

    def _file_away(self, code: str, key: str, question: dict) -> None:
        """A question the class has moved past: its counts into the room's list of questions
        asked, and its answers out of the store."""
        counts = self.answers(code, question["id"], question)

        def change(room):
            entry = {name: question[name] for name in ("kind", "params", "choices", "answer")}
            entry["counts"] = counts
            room["asked"] = (room.get("asked", []) + [entry])[-MAX_HISTORY:]
            return True

        self._change(code, key, change)
        self.store.delete(f"answers:{code}:{question['id']}")

    def answer(self, code: str, question_id: str, browser: str, choice: int) -> bool:
        """One answer per browser, anonymous (a hash of a random id, no name). False when the
        question is not the room's current one, is revealed, or has MAX_ANSWERS already."""
        code = normal_code(code)
        question = self.get(code)["question"]
        if not question or question["id"] != question_id or question["revealed"]:
            return False
        if not 0 <= choice < len(question["choices"]):
            return False
        return self.store.hset_capped(
            f"answers:{code}:{question_id}", _browser(browser), str(choice), MAX_ANSWERS,
            ROOM_TTL, guard=(f"open:{code}", question_id),
        )  # fmt: skip

    def answer_of(self, code: str, question_id: str, browser: str) -> int | None:
        """This browser's answer to the question, or None: a student back after a reload or a
        lost replica sees the answer they sent rather than the choices again."""
        found = self.store.hgetall(f"answers:{normal_code(code)}:{question_id}")
        choice = found.get(_browser(browser))
        return None if choice is None else int(choice)

    def answers(self, code: str, question_id: str, question: dict | None = None) -> list[int]:
        """How many chose each choice, in the choices' order."""
        if question is None:
            question = self.get(code)["question"]
        counts = [0] * (len(question["choices"]) if question else 0)
        for choice in self.store.hgetall(f"answers:{normal_code(code)}:{question_id}").values():
            if 0 <= int(choice) < len(counts):
                counts[int(choice)] += 1
        return counts
