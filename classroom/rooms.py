"""Rooms: a short code for students, a secret key for the teacher, the teacher's view, who is
connected, one question at a time and its anonymous answers. Everything lives in the store."""

import hashlib
import hmac
import json
import re
import secrets
import time
from dataclasses import asdict

from core.questions import Question

ROOM_TTL = 12 * 3600  # a room not used for this long expires
MAX_ROOMS = 500  # per store
MAX_ANSWERS = 300  # per question
ALIVE_S = 6.0  # a student seen within this many seconds counts as connected
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I/L to misread on a projector
CODE_LENGTH = 5
CODE_PATTERN = re.compile(rf"^[{CODE_ALPHABET}]{{{CODE_LENGTH}}}$")
VIEW_FIELDS = (
    "page", "step", "sentence", "d_model", "n_heads", "seed", "mask", "pe", "head", "focus",
)  # fmt: skip


class RoomError(Exception):
    """``code``: "full", "bad_code" or "no_room", for a message in the learner's language."""

    def __init__(self, code: str):
        super().__init__(code)
        self.code = code


def normal_code(text: str) -> str:
    return (text or "").strip().upper()


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class Rooms:
    def __init__(self, store):
        self.store = store

    # the room itself
    def open(self) -> tuple[str, str]:
        """A new room: (code for the students, secret key for the teacher)."""
        if self.store.count("room:") >= MAX_ROOMS:
            raise RoomError("full")
        key = secrets.token_urlsafe(16)
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            room = {"key_hash": _hash(key), "view": {}, "version": 0, "question": None}
            if self.store.set_new(f"room:{code}", json.dumps(room), ROOM_TTL):
                return code, key

    def get(self, code: str) -> dict:
        """The room, or RoomError: "bad_code" (not a code's shape) or "no_room" (none, expired)."""
        code = normal_code(code)
        if not CODE_PATTERN.match(code):
            raise RoomError("bad_code")
        raw = self.store.get(f"room:{code}")
        if raw is None:
            raise RoomError("no_room")
        return json.loads(raw)

    def _save(self, code: str, room: dict) -> None:
        self.store.set(f"room:{normal_code(code)}", json.dumps(room), ROOM_TTL)

    def is_teacher(self, code: str, key: str | None) -> bool:
        """Whether ``key`` drives the room (compared in constant time, as hashes)."""
        if not key:
            return False
        try:
            room = self.get(code)
        except RoomError:
            return False
        return hmac.compare_digest(_hash(key), room["key_hash"])

    def _teachers_room(self, code: str, key: str) -> dict:
        if not self.is_teacher(code, key):
            raise PermissionError("only the teacher's key drives a room")
        return self.get(code)

    # the teacher's view, followed by the students
    def publish(self, code: str, key: str, view: dict) -> int:
        """Set the view students follow; returns its version (unchanged if the view is)."""
        room = self._teachers_room(code, key)
        view = {name: view[name] for name in VIEW_FIELDS if name in view}
        if view != room["view"]:
            room["view"], room["version"] = view, room["version"] + 1
        self._save(code, room)  # also keeps the room alive while the teacher works
        return room["version"]

    # who is here
    def heartbeat(self, code: str, session: str) -> None:
        self.store.hset(f"alive:{normal_code(code)}", session, str(time.time()), ROOM_TTL)

    def connected(self, code: str) -> int:
        since = time.time() - ALIVE_S
        seen = self.store.hgetall(f"alive:{normal_code(code)}")
        return sum(1 for t in seen.values() if float(t) >= since)

    # one question at a time
    def ask(self, code: str, key: str, question: Question) -> str:
        room = self._teachers_room(code, key)
        question_id = secrets.token_hex(4)
        room["question"] = {"id": question_id, "revealed": False, **asdict(question)}
        self._save(code, room)
        return question_id

    def reveal(self, code: str, key: str) -> None:
        room = self._teachers_room(code, key)
        if room["question"]:
            room["question"]["revealed"] = True
            self._save(code, room)

    def answer(self, code: str, question_id: str, session: str, choice: int) -> bool:
        """One answer per session, anonymous (the session id is a random token, no name). False
        when the question is not the room's current one, is revealed, or has its fill."""
        question = self.get(code)["question"]
        if not question or question["id"] != question_id or question["revealed"]:
            return False
        if not 0 <= choice < len(question["choices"]):
            return False
        answers = f"answers:{normal_code(code)}:{question_id}"
        if self.store.hlen(answers) >= MAX_ANSWERS:
            return False
        self.store.hset(answers, session, str(choice), ROOM_TTL)
        return True

    def answers(self, code: str, question_id: str) -> list[int]:
        """How many chose each choice, in the choices' order."""
        question = self.get(code)["question"]
        counts = [0] * (len(question["choices"]) if question else 0)
        for choice in self.store.hgetall(f"answers:{normal_code(code)}:{question_id}").values():
            if 0 <= int(choice) < len(counts):
                counts[int(choice)] += 1
        return counts
