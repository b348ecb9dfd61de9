"""scheduling/turns.py: the model's bounded pool. At most ``slots`` jobs at once, in the order they
came; a Play made of one-token jobs holds another session's Next for at most one job; one waiting
job per session, a rerun's place kept for its next job; a waiting job told how many are before it;
and shared values (ui/kit/shared_cache.py) built once through it, nested builds included."""

import threading
import time

import pytest

from scheduling import turns as turns_module
from scheduling.turns import Replaced, Turns
from tests.support.threads import join_all, start_all
from ui.kit.shared_cache import shared

JOB_S = 0.05


class Who:
    """Each thread says which session it is (threading.local), as Streamlit's script threads do."""

    def __init__(self):
        self.local = threading.local()

    def __call__(self):
        return getattr(self.local, "session", f"thread-{threading.get_ident()}")

    def be(self, session):
        self.local.session = session


def test_at_most_the_slots_at_once_in_the_order_they_came():
    pool, running, most, order = Turns(2), [0], [0], []
    lock = threading.Lock()

    def job(k):
        with pool.turn():
            with lock:
                running[0] += 1
                most[0] = max(most[0], running[0])
                order.append(k)
            time.sleep(JOB_S)
            with lock:
                running[0] -= 1

    join_all(start_all([lambda k=k: job(k) for k in range(10)]))
    assert most[0] == 2
    assert order == list(range(10))
    assert pool.started == 10 and pool.waiting() == 0 and pool.running() == 0


def test_a_play_of_one_token_jobs_holds_a_next_for_at_most_one_token():
    pool, waited = Turns(1), []

    def play():
        for _ in range(20):  # 20 tokens, one turn each, back in line after each
            with pool.turn():
                time.sleep(JOB_S)

    def next_press():
        time.sleep(5 * JOB_S)  # pressed while the Play runs
        asked = time.monotonic()
        with pool.turn():
            waited.append(time.monotonic() - asked)
            time.sleep(JOB_S)

    join_all(start_all([play, next_press]))
    assert waited[0] <= JOB_S * 1.6  # the token being written, then the Next
    assert pool.started == 21


def test_one_waiting_job_per_session_the_second_press_takes_the_first_ones_place():
    who = Who()
    pool, outcome, seen = Turns(1, who=who), {}, {}
    release = threading.Event()

    def holder():
        who.be("holder")
        with pool.turn():
            release.wait(5)

    def press(name, session):
        who.be(session)
        try:
            with pool.turn():
                outcome[name] = "ran"
        except Replaced:
            outcome[name] = "replaced"

    threads = start_all([holder, lambda: press("other", "B"), lambda: press("first", "A")])
    time.sleep(0.05)
    seen["before"] = [ticket.session for ticket in pool._line]
    threads += start_all([lambda: press("second", "A")])
    time.sleep(0.05)
    seen["after"] = [ticket.session for ticket in pool._line]
    release.set()
    join_all(threads)
    assert seen == {"before": ["B", "A"], "after": ["B", "A"]}  # A's place, not the end
    assert outcome == {"other": "ran", "first": "replaced", "second": "ran"}
    assert pool.started == 3  # the replaced press never ran


class Rerun(Exception):
    pass


def test_a_waiting_job_is_told_who_is_ahead_and_a_rerun_keeps_its_place(monkeypatch):
    monkeypatch.setattr(turns_module, "POLL_S", 0.02)
    who, told, stop_c = Who(), {}, threading.Event()

    class Line:  # as ui/work/model_turns.py shows it, here recorded; C's rerun interrupts it
        def __init__(self):
            self.session = who()

        def wait(self, ahead):
            told.setdefault(self.session, []).append(ahead)
            if self.session == "C" and stop_c.is_set():
                stop_c.clear()  # one rerun
                raise Rerun

        def done(self):
            told.setdefault(self.session, []).append("done")

    pool, release = Turns(1, who=who, show=Line), threading.Event()
    order = []

    def session(name, hold=False):
        who.be(name)
        try:
            with pool.turn():
                order.append(name)
                if hold:
                    release.wait(5)
        except Rerun:
            order.append(f"{name} rerun")
            time.sleep(0.05)
            with pool.turn():  # the rerun's job, within KEEP_PLACE_S: its old place
                order.append(f"{name} again")

    threads = start_all([lambda: session("H", True)] + [lambda n=n: session(n) for n in "BCD"])
    time.sleep(0.1)
    stop_c.set()
    time.sleep(0.15)
    assert [t.session for t in pool._line] == ["B", "C", "D"]  # C's place kept
    release.set()
    join_all(threads)
    assert order == ["H", "C rerun", "B", "C again", "D"]
    assert told["B"][0] == 0 and told["D"][0] == 2 and told["D"][-1] == "done"
    assert 1 in told["D"]  # D's count went down as the line moved


def test_shared_values_are_built_once_through_the_turns_nested_builds_too():
    pool, builds = Turns(1), []

    @shared(max_entries=8, turns=pool)
    def inner(x):
        builds.append(("inner", x))
        time.sleep(JOB_S)
        return x * 2

    @shared(max_entries=8, turns=pool)
    def outer(x):
        builds.append(("outer", x))
        return inner(x) + 1  # a job inside a job: no second turn (one slot: no deadlock)

    results = []
    threads = start_all([lambda: results.append(outer(3)) for _ in range(8)])
    threads += start_all([lambda: results.append(inner(3)) for _ in range(4)])
    join_all(threads)
    assert sorted(results) == [6] * 4 + [7] * 8
    assert sorted(builds) == [("inner", 3), ("outer", 3)]
    assert pool.running() == 0 and pool.waiting() == 0


@pytest.mark.parametrize("slots", [1, 2])
def test_a_failed_build_lets_the_next_caller_build(slots):
    pool, calls = Turns(slots), []

    @shared(max_entries=4, turns=pool)
    def flaky(x):
        calls.append(x)
        if len(calls) == 1:
            time.sleep(JOB_S)
            raise ValueError("first build fails")
        return x

    outcomes = []

    def call():
        try:
            outcomes.append(flaky(5))
        except ValueError:
            outcomes.append("failed")

    join_all(start_all([call for _ in range(4)]))
    assert sorted(outcomes, key=str) == [5, 5, 5, "failed"]
    assert len(calls) == 2


def test_a_rerun_just_as_the_turn_comes_gives_the_turn_back():
    class Line:  # the page's "waiting" note, whose clearing meets a rerun asked for meanwhile
        def wait(self, ahead):
            pass

        def done(self):
            raise Rerun

    pool, release = Turns(1, show=Line), threading.Event()

    def holder():
        with pool.turn():
            release.wait(5)

    def rerun_at_its_turn():
        with pytest.raises(Rerun), pool.turn():
            pass

    threads = start_all([holder, rerun_at_its_turn])
    time.sleep(0.6)  # the second waits (and is shown waiting) at least once
    release.set()
    join_all(threads)
    assert pool.running() == 0  # both turns given back
    with pool.turn():  # and the model is free for the next job
        assert pool.running() == 1


def test_a_job_that_starts_beside_another_runs_inside_together_and_a_lone_job_does_not():
    """The app's ``together`` holds BLAS to one thread: two jobs on two cores, one BLAS thread
    each; a job alone keeps both."""
    me, inside = threading.local(), []

    class Together:
        def __enter__(self):
            inside.append(me.name)

        def __exit__(self, *_):
            return False

    pool = Turns(2, together=Together)
    first_running, second_done = threading.Event(), threading.Event()

    def first():
        me.name = "first"
        with pool.turn():
            first_running.set()
            assert second_done.wait(5)

    def second():
        me.name = "second"
        assert first_running.wait(5)
        with pool.turn():
            pass
        second_done.set()

    join_all(start_all([first, second]))
    me.name = "alone"
    with pool.turn():
        pass
    assert inside == ["second"]


def test_every_job_holding_its_turn_runs_inside_held_once_nested_jobs_included():
    """The app's ``held`` keeps the C heap for a pass's arrays (ui/kit/heap.py): entered for
    every job once it has its turn, alone or beside another, and once for a job inside a job;
    left when the turn is given back, a failed job's too; not for a plain turn (a training
    run's, whose steps run in its own process)."""
    events = []

    class Held:
        def __enter__(self):
            events.append("in")

        def __exit__(self, *_):
            events.append("out")
            return False

    pool = Turns(2, held=Held)
    with pool.turn():
        assert events == ["in"]
        with pool.turn():  # a job inside a job: its turn already held
            pass
        assert events == ["in"]
    assert events == ["in", "out"]
    with pytest.raises(ValueError), pool.turn():
        raise ValueError("a pass failed")
    assert events == ["in", "out", "in", "out"]
    with pool.turn(plain=True):  # a training run's turn: its steps are in its own process
        pass
    assert events == ["in", "out", "in", "out"]
