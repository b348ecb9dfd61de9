"""Training runs shared by the server (scheduling/training.py), with real child processes: one run
per settings however many sessions ask, the child's losses those of core.tiny.train in this process
bit for bit, Stop ending a run within a step when no one else follows it, two runs at once both
finishing, and a third waiting its turn."""

import threading
import time

import numpy as np
import pytest

from core import tiny
from core.threads import on_one_core
from scheduling.training import TURN_S, Settings, TrainingRuns
from scheduling.turns import Turns

SMALL = Settings("repeat", d_model=16, n_heads=2, n_layers=2, steps=40)
LONG = Settings("copy", d_model=32, n_heads=2, n_layers=2, steps=1000)


def _finish(run, timeout: float = 120.0) -> None:
    assert run.event.wait(timeout), f"the run did not end within {timeout} s"


def test_a_class_asking_at_once_gets_one_run_with_core_tinys_own_losses():
    runs = TrainingRuns(max_runs=2)
    got = []

    def press(k):
        got.append(runs.request(SMALL, f"session-{k}"))

    threads = [threading.Thread(target=press, args=(k,)) for k in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(run) for run in got}) == 1 and len(got[0].sessions) == 12
    run = got[0]
    _finish(run)
    assert run.state == "done"
    task = tiny.TASKS["repeat"]
    params = tiny.init(0, task.vocab, task.n, 16, 2, 2)
    with on_one_core():  # as the child trains
        here = [(p.step, p.loss, p.answer_loss) for p in tiny.train(params, task, 40, n_heads=2)]
    assert [row[:3] for row in run.steps] == here  # the same floats, through JSON and back
    assert [snap["step"] for snap in run.snapshots] == [0, 25, 40]
    assert run.snapshots[-1]["attention"].shape == (2, 2, task.n, task.n)
    assert runs.request(SMALL, "late") is run  # finished: joined, not trained again


def test_stop_ends_a_run_no_one_else_follows_within_a_step():
    runs = TrainingRuns(max_runs=1)
    run = runs.request(LONG, "alone")
    while len(run.steps) < 5:
        time.sleep(0.05)
    started = time.monotonic()
    runs.stop(run, "alone")
    run.child.wait(timeout=5)
    assert time.monotonic() - started < 1.0
    assert run.state == "stopped" and len(run.steps) < LONG.steps
    again = runs.request(LONG, "alone")  # a stopped run is trained again when asked
    assert again is not run
    runs.stop(again, "alone")


def test_stop_by_one_of_two_sessions_leaves_the_run_for_the_other():
    runs = TrainingRuns(max_runs=1)
    run = runs.request(SMALL, "a")
    runs.request(SMALL, "b")
    runs.stop(run, "a")
    _finish(run)
    assert run.state == "done" and run.steps[-1][0] == SMALL.steps


def test_two_runs_at_once_both_finish_and_a_third_waits_its_turn():
    runs = TrainingRuns(max_runs=2)
    first = runs.request(SMALL, "a")
    second = runs.request(Settings("copy", 16, 2, 2, 40), "b")
    third = runs.request(Settings("reverse", 16, 2, 2, 40), "c")
    assert third.state == "queued" and runs.ahead(third) == 1
    for run in (first, second, third):
        _finish(run)
        assert run.state == "done" and run.steps[-1][0] == 40


def test_a_replay_shows_what_was_trained_by_then():
    runs = TrainingRuns()
    run = runs.request(SMALL, "a")
    _finish(run)
    seconds = np.array([row[3] for row in run.steps])
    middle = float(np.median(seconds))
    rows, snapshots = run.until(middle)
    assert len(rows) == int((seconds <= middle).sum()) and rows[-1, 3] <= middle
    assert all(snap["step"] <= rows[-1, 0] for snap in snapshots)
    rows, snapshots = run.until(float("inf"))
    assert len(rows) == SMALL.steps + 1 and len(snapshots) == 3


@pytest.mark.parametrize("bad", [Settings("repeat", 30, 4, 2, 40)])
def test_a_run_the_model_refuses_fails_with_its_message(bad):
    runs = TrainingRuns()
    run = runs.request(bad, "a")
    _finish(run)
    assert run.state == "failed" and "not divisible" in run.error


def test_a_run_trains_only_in_its_turns_at_the_shared_pool():
    """Given the model's turns, the child trains while its run holds a turn: with the one slot
    held elsewhere it trains nothing; let go, it trains to the end over several turns, with
    core.tiny's own losses."""
    turns = Turns(slots=1)
    runs = TrainingRuns(max_runs=1, turns=turns)
    with turns.turn():  # a Gemma pass, say, holds the only core
        run = runs.request(SMALL, "a")
        time.sleep(1.5)  # the child has started and waits
        assert run.state == "running" and run.steps == []
    _finish(run)
    assert run.state == "done" and [row[0] for row in run.steps] == list(range(SMALL.steps + 1))
    assert turns.started >= 3  # ours, then the run's turns: more than one
    task = tiny.TASKS["repeat"]
    params = tiny.init(0, task.vocab, task.n, 16, 2, 2)
    with on_one_core():
        here = [p.loss for p in tiny.train(params, task, SMALL.steps, n_heads=2)]
    assert [row[1] for row in run.steps] == here


def test_a_training_run_holds_anothers_job_for_about_one_turn():
    """A job asking for the one slot while a long run trains waits at most about TURN_S and one
    step (~20 ms here), never the run's whole length."""
    turns = Turns(slots=1)
    runs = TrainingRuns(max_runs=1, turns=turns)
    run = runs.request(LONG, "a")
    while len(run.steps) < 3:
        time.sleep(0.02)
    waits = []
    for _ in range(8):
        asked = time.perf_counter()
        with turns.turn():
            waits.append(time.perf_counter() - asked)
            before = len(run.steps)
            time.sleep(0.1)
            assert len(run.steps) == before  # the run does not train in our turn
        time.sleep(0.05)
    runs.stop(run, "a")
    assert len(run.steps) < LONG.steps  # still training when we stopped it
    assert max(waits) < TURN_S + 0.4, waits


def test_the_watching_count_drops_a_page_that_stopped_drawing_the_run():
    """The reviewed case: "3 people are watching" counted two sessions that had closed. A page
    that draws the run live says so every 0.5 s; one that has not for WATCH_S is gone."""
    from scheduling.training import WATCH_S

    runs = TrainingRuns(max_runs=1)
    run = runs.request(SMALL, "teacher")
    runs.request(SMALL, "closed-1")
    runs.request(SMALL, "closed-2")
    assert runs.watching(run, "closed-1", 100.0) == 1
    assert runs.watching(run, "closed-2", 100.2) == 2
    assert runs.watching(run, "teacher", 100.4) == 3  # three pages drawing it
    later = 100.4 + WATCH_S + 0.1  # the two closed tabs drew nothing since
    assert runs.watching(run, "teacher", later) == 1
    assert len(run.sessions) == 3  # (they still follow it until they stop it: its stop rule)
    runs.stop(run, "teacher")
    runs.stop(run, "closed-1")
    runs.stop(run, "closed-2")
    _finish(run)
