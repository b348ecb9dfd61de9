"""A room's practice (core.practice): each browser's line of NumPy for an attention step, kept as
its outcome, so that the teacher sees per step how many answered, how many are right and which
classic mistakes the others made; and one wrong result per step and mistake, to project beside
the right one.

One answer per browser per step, and the LATEST one counts: a student who fixes their line is
counted right (the teacher wants to know where the class is now, not where it started). An
outcome is "right", a mistake's key (core.practice.MISTAKES), "other" (wrong, and no classic
mistake) or "error" (the line was refused, or failed).

The store's keys, for room CODE (gone with the room, ``Rooms.close``; ROOM_TTL like the rest):
    practice:CODE:STEP      hash: browser (a hash of its id) -> its latest outcome for STEP
    practice_wrong:CODE     hash: "STEP:OUTCOME" -> JSON {"value": the wrong array (rounded to
                            DECIMALS), "layer": the room's layer settings and head it was for}

Bounds: MAX_ANSWERS browsers per step (as a question's answers); an array is kept only when it
has at most MAX_CELLS numbers, two dimensions at most, and only while the student's layer
settings are the room's (a student exploring their own sentence is counted, but their array,
whose sentence could be anything they typed, is never kept nor shown); at most MAX_WRONG_KEPT
arrays per room (the first step and mistake pairs sent, each holding its latest array).
Memory (Redis MEMORY USAGE): a room at every cap (MAX_ANSWERS browsers on each of the 10 steps,
MAX_WRONG_KEPT arrays of 64×64) holds about 250 kB of outcomes and 490 kB of arrays; a class of
30 on 4×4 matrices, a few kB.
"""

import json
from collections import Counter

import numpy as np

from classroom.rooms import MAX_ANSWERS, ROOM_TTL, Rooms, _browser, normal_code, practice_keys
from core.practice import MISTAKES, STEPS

MAX_CELLS = 64 * 64  # the largest wrong array kept to project
MAX_WRONG_KEPT = 12  # wrong arrays a room keeps (step and mistake pairs, the first ones sent)
DECIMALS = 4
OUTCOMES = ("right", *MISTAKES, "other", "error")  # in the order a teacher reads them
WRONG = tuple(o for o in OUTCOMES if o not in ("right", "error"))  # the ones with an array
LAYER = ("sentence", "mode", "d_model", "n_heads", "seed", "positional", "mask")


def outcome_of(verdict) -> str:
    """What the room keeps of core.practice.check's verdict."""
    if verdict.ok:
        return "right"
    if verdict.mistake in MISTAKES:  # (Q @ K's shape error names its mistake too)
        return verdict.mistake
    return "error" if verdict.error else "other"


def kept_array(value) -> list | None:
    """The array as the room keeps it (nested lists, rounded), or None when it is too big, of
    too many dimensions, or not numbers."""
    if value is None:
        return None
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None
    if array.ndim > 2 or array.size > MAX_CELLS or array.size == 0:
        return None
    return np.round(array, DECIMALS).tolist()


class Practice:
    """The practice answers of the rooms in ``rooms``' store."""

    def __init__(self, rooms: Rooms):
        self.rooms, self.store = rooms, rooms.store

    def record(
        self, code: str, browser: str, step: str, outcome: str, value=None, layer=None
    ) -> bool:
        """This browser's latest outcome for ``step``; with ``value`` (a wrong result) and
        ``layer`` (the room's layer settings and head the student's line was for: given only
        when the student's are the room's), the array to project. False when the step or the
        outcome is not one, or the step has MAX_ANSWERS browsers already. RoomError when the
        room does not exist."""
        code = normal_code(code)
        self.rooms.get(code)  # RoomError: no room (a student's page may outlive it)
        if step not in STEPS or outcome not in OUTCOMES:
            return False
        kept = self.store.hset_capped(f"practice:{code}:{step}", _browser(browser), outcome,
                                      MAX_ANSWERS, ROOM_TTL)  # fmt: skip
        array = kept_array(value) if outcome in WRONG and layer is not None else None
        if kept and array is not None:
            wrong = {"value": array, "layer": dict(layer)}
            self.store.hset_capped(f"practice_wrong:{code}", f"{step}:{outcome}",
                                   json.dumps(wrong), MAX_WRONG_KEPT, ROOM_TTL)  # fmt: skip
        return kept

    def outcome_of(self, code: str, browser: str, step: str) -> str | None:
        """This browser's latest outcome for ``step``, or None."""
        found = self.store.hgetall(f"practice:{normal_code(code)}:{step}")
        return found.get(_browser(browser))

    def counts(self, code: str, step: str) -> Counter:
        """How many browsers' latest answer for ``step`` is each outcome (no browser named)."""
        found = self.store.hgetall(f"practice:{normal_code(code)}:{step}")
        return Counter(o for o in found.values() if o in OUTCOMES)

    def summary(self, code: str) -> dict[str, Counter]:
        """Each step anyone answered: its counts, in the steps' order."""
        every = {step: self.counts(code, step) for step in STEPS}
        return {step: counts for step, counts in every.items() if counts}

    def wrong(self, code: str, step: str, outcome: str) -> dict | None:
        """The wrong array kept for ``step`` and ``outcome`` ({"value", "layer"}), or None."""
        raw = self.store.hgetall(f"practice_wrong:{normal_code(code)}").get(f"{step}:{outcome}")
        return None if raw is None else json.loads(raw)

    def to_project(self, code: str, step: str) -> tuple[str, dict] | None:
        """The wrong result a teacher projects for ``step``: of the mistakes with an array kept,
        the one most browsers made now (ties: in OUTCOMES' order); None when none is kept."""
        counts = self.counts(code, step)
        kept = self.store.hgetall(f"practice_wrong:{normal_code(code)}")
        have = [o for o in WRONG if counts[o] and f"{step}:{o}" in kept]
        if not have:
            return None
        best = max(have, key=lambda o: (counts[o], -OUTCOMES.index(o)))
        return best, json.loads(kept[f"{step}:{best}"])

    def clear(self, code: str, key: str) -> None:
        """The teacher starts the practice again: every step's answers and arrays gone."""
        if not self.rooms.is_teacher(code, key):
            raise PermissionError("only the teacher's key clears a room's practice")
        self.store.delete(*practice_keys(normal_code(code)))
