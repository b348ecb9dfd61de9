"""scheduling/ahead.py: a session's next request done in the background, one waiting job a
session."""

import threading

from scheduling.ahead import Ahead


def test_a_newer_job_takes_the_place_of_its_sessions_waiting_one():
    """One worker held busy: session a's two jobs and b's one wait; a's second replaces its
    first, and the line runs in the order the sessions came."""
    ahead, release, ran = Ahead(workers=1), threading.Event(), []
    busy = threading.Event()
    ahead.submit("held", lambda: (busy.set(), release.wait()))
    assert busy.wait(10) and not ahead.idle(0.05)
    ahead.submit("a", lambda: ran.append("a1"))
    ahead.submit("b", lambda: ran.append("b1"))
    ahead.submit("a", lambda: ran.append("a2"))
    assert ahead.waiting() == 2 and ahead.replaced == 1
    release.set()
    assert ahead.idle(10)
    assert ran == ["b1", "a2"] and ahead.done == 3


def test_jobs_run_side_by_side_up_to_the_workers():
    """Four sessions' jobs that each wait for all four to have started: they run at once on four
    workers (as their passes must, to go out in one batch)."""
    ahead, started = Ahead(workers=4), threading.Barrier(4, timeout=10)
    for session in "abcd":
        ahead.submit(session, started.wait)
    assert ahead.idle(10)
    assert ahead.done == 4 and ahead.failed == 0 and not started.broken


def test_a_job_that_fails_is_counted_and_the_worker_goes_on():
    ahead, ran = Ahead(workers=1), []
    ahead.submit("a", lambda: 1 / 0)
    ahead.submit("b", lambda: ran.append("b"))
    assert ahead.idle(10)
    assert ahead.failed == 1 and ran == ["b"] and ahead.done == 2
