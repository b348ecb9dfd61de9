"""A room's practice on both stores (classroom/practice.py): a class of 30 sending lines checked by
core.practice.check, counted per step and mistake exactly, one answer per browser per step (the
latest), the wrong arrays kept within their bounds, nothing of a browser's id stored, and all of
it gone with the room, at its TTL or when the teacher starts again."""

import json

import numpy as np
import pytest

import core.practice
from classroom import practice as practice_module
from classroom.practice import MAX_CELLS, OUTCOMES, Practice, kept_array, outcome_of
from classroom.rooms import ROOM_TTL, RoomError, Rooms, practice_keys
from tests.support.rooms import race
from ui.work.traces import TraceKey, sentence_trace

LAYER = {"sentence": "the cat sat on the mat", "mode": "auto", "d_model": 8, "n_heads": 2,
         "seed": 0, "positional": True, "mask": "causal", "head": 0}  # fmt: skip
LINES = {  # step -> outcome -> a line that gives it
    "A": {
        "right": "softmax(S_masked, axis=-1)",
        "wrong_axis": "softmax(S_masked, axis=0)",
        "mask_zero": "softmax(np.where(mask, S_scaled, 0), axis=-1)",
        "error": "__import__('os')",
        "other": "S_masked * 0 + 0.1234567",
    },
    "S_masked": {
        "right": "np.where(mask, S_scaled, -np.inf)",
        "mask_zero": "np.where(mask, S_scaled, 0)",
    },
    "S": {"no_transpose": "Q @ K"},
}


@pytest.fixture(scope="module")
def trace():
    data = sentence_trace(TraceKey(**{k: v for k, v in LAYER.items() if k != "head"}))
    return data.trace, data.W


def verdict(trace, step: str, outcome: str):
    found = core.practice.check(step, LINES[step][outcome], *trace[:1], 0, trace[1])
    assert outcome_of(found) == outcome, (step, outcome, found)
    return found


def send(practice, code, browser, step, found):
    return practice.record(code, browser, step, outcome_of(found), found.value, LAYER)


# 30 students: (browser, step, outcome), in the order sent; some send twice
FIRST = (
    [(f"s{i}", "A", "right") for i in range(12)]
    + [(f"s{i}", "A", "wrong_axis") for i in range(12, 20)]
    + [(f"s{i}", "A", "mask_zero") for i in range(20, 25)]
    + [(f"s{i}", "A", "error") for i in range(25, 28)]
    + [(f"s{i}", "A", "other") for i in range(28, 30)]
    + [(f"s{i}", "S_masked", "right") for i in range(7)]
    + [(f"s{i}", "S_masked", "mask_zero") for i in range(7, 10)]
    + [("s11", "S", "no_transpose")]
)
AGAIN = (  # fixed: counted right; and two who were right, then wrong (the latest counts)
    [(f"s{i}", "A", "right") for i in (12, 13, 25)]
    + [(f"s{i}", "A", "mask_zero") for i in (0, 1)]
    + [("s7", "S_masked", "right")]
)


def final_counts() -> dict:
    latest = {}
    for browser, step, outcome in FIRST + AGAIN:
        latest[(browser, step)] = outcome
    counts = {}
    for (_, step), outcome in latest.items():
        counts.setdefault(step, {}).setdefault(outcome, 0)
        counts[step][outcome] += 1
    return counts


def test_thirty_students_are_counted_exactly_one_latest_answer_each(store, trace):
    rooms = Rooms(store)
    code, key = rooms.open("teacher")
    practice = Practice(rooms)
    for browser, step, outcome in FIRST + AGAIN:
        assert send(practice, code, browser, step, verdict(trace, step, outcome))
    expected = final_counts()
    assert expected["A"] == {"right": 12 - 2 + 3, "wrong_axis": 6, "mask_zero": 7, "error": 2,
                             "other": 2}  # fmt: skip
    summary = practice.summary(code)
    assert list(summary) == ["S", "S_masked", "A"]  # in the steps' order
    assert {step: dict(counts) for step, counts in summary.items()} == expected
    assert sum(summary["A"].values()) == 30 and sum(summary["S_masked"].values()) == 10
    assert practice.outcome_of(code, "s0", "A") == "mask_zero"  # right, then wrong: the latest
    assert practice.outcome_of(code, "s12", "A") == "right"  # wrong, then fixed
    assert practice.outcome_of(code, "s99", "A") is None
    # the store holds no browser's id, only its hash; and no line of code
    raw = json.dumps([store.hgetall(k) for k in practice_keys(code)])
    assert not any(f'"s{i}"' in raw for i in range(30)) and "softmax" not in raw


def test_the_projected_wrong_result_is_the_commonest_mistake_as_sent(store, trace):
    rooms = Rooms(store)
    code, _ = rooms.open("teacher")
    practice = Practice(rooms)
    assert practice.to_project(code, "A") is None
    sent = {}
    for browser, step, outcome in FIRST + AGAIN:
        found = verdict(trace, step, outcome)
        send(practice, code, browser, step, found)
        if found.value is not None and outcome not in ("right", "error"):
            sent[(step, outcome)] = found.value  # the latest of each is kept
    outcome, wrong = practice.to_project(code, "A")
    assert outcome == "mask_zero"  # 7 browsers now, more than wrong_axis's 6
    assert wrong["layer"] == LAYER
    assert np.array_equal(wrong["value"], np.round(sent[("A", "mask_zero")], 4))
    assert (
        practice.wrong(code, "A", "wrong_axis")["value"]
        == np.round(sent[("A", "wrong_axis")], 4).tolist()
    )
    assert practice.to_project(code, "S_masked")[0] == "mask_zero"
    S_masked = practice.wrong(code, "S_masked", "mask_zero")["value"]
    assert np.array_equal(S_masked, np.round(sent[("S_masked", "mask_zero")], 4))
    assert practice.to_project(code, "S") is None  # a shape error: counted, no array to show


def test_arrays_are_kept_only_small_numeric_and_on_the_rooms_settings(store):
    rooms = Rooms(store)
    code, _ = rooms.open("teacher")
    practice = Practice(rooms)
    big = np.zeros((65, 64))
    assert kept_array(big) is None and kept_array(np.zeros((2, 2, 2))) is None
    assert kept_array(np.ones((64, 64))) is not None and MAX_CELLS == 64 * 64
    assert kept_array(np.array([[1 / 3, -np.inf]])) == [[0.3333, -np.inf]]
    assert practice.record(code, "a", "A", "other", big, LAYER)  # counted, its array not kept
    assert practice.wrong(code, "A", "other") is None and practice.counts(code, "A")["other"] == 1
    assert practice.record(code, "b", "A", "other", np.eye(2), None)  # exploring: not kept
    assert practice.wrong(code, "A", "other") is None and practice.counts(code, "A")["other"] == 2
    assert practice.record(code, "c", "A", "right", np.eye(2), LAYER)  # a right one: no array
    assert store.hgetall(f"practice_wrong:{code}") == {}
    assert not practice.record(code, "d", "nope", "right")  # not a step
    assert not practice.record(code, "d", "A", "<script>")  # not an outcome
    assert set(practice.counts(code, "A")) <= set(OUTCOMES)
    with pytest.raises(RoomError):
        practice.record("ZZZZZ", "d", "A", "right")  # no such room: nothing written
    assert store.hgetall("practice:ZZZZZ:A") == {}


def test_answers_are_capped_per_step_and_racing_browsers_each_count_once(store, monkeypatch):
    monkeypatch.setattr(practice_module, "MAX_ANSWERS", 20)
    monkeypatch.setattr(practice_module, "MAX_WRONG_KEPT", 3)
    rooms = Rooms(store)
    code, _ = rooms.open("teacher")
    practice = Practice(rooms)
    results = race(lambda i: practice.record(code, f"b{i}", "A", "right"), n=24)
    assert sum(results) == 20 and practice.counts(code, "A")["right"] == 20
    counted, refused = results.index(True), results.index(False)  # (which: the race's say)
    assert practice.record(code, f"b{counted}", "A", "wrong_axis")  # counted: may change it
    assert not practice.record(code, f"b{refused}", "A", "wrong_axis")  # at the cap: not new
    assert sum(practice.counts(code, "A").values()) == 20
    for step in ("Q", "K", "V", "S"):
        practice.record(code, "x", step, "wrong_matrix", np.eye(2), LAYER)
    assert len(store.hgetall(f"practice_wrong:{code}")) == 3  # MAX_WRONG_KEPT arrays


def test_practice_goes_with_the_room_its_ttl_or_the_teachers_fresh_start(store, clock, later):
    rooms = Rooms(store, clock=clock)
    code, key = rooms.open("teacher")
    rooms.publish(code, key, {"step": "softmax"})
    practice = Practice(rooms)
    practice.record(code, "a", "A", "wrong_axis", np.eye(2), LAYER)
    with pytest.raises(PermissionError):
        practice.clear(code, "not the key")
    assert practice.summary(code)
    practice.clear(code, key)
    assert practice.summary(code) == {} and practice.wrong(code, "A", "wrong_axis") is None
    practice.record(code, "a", "A", "wrong_axis", np.eye(2), LAYER)
    rooms.close(code)
    assert all(not store.hgetall(k) for k in practice_keys(code))
    code, key = rooms.open("teacher")
    rooms.publish(code, key, {"step": "softmax"})
    practice.record(code, "a", "A", "wrong_axis", np.eye(2), LAYER)
    later(ROOM_TTL + 1)
    assert store.hgetall(f"practice:{code}:A") == {}
    assert store.hgetall(f"practice_wrong:{code}") == {}
