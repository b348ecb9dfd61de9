"""A class pressing Measure at once: no crash, one measurement, one shared result.

Streamlit runs each session's script in its own thread, so these tests press from threads, while
other threads allocate NumPy arrays as learners' reruns do."""

import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np

from measure.queue import FRESH_S, MeasurementQueue, run_in_child
from tests.support.clock import Clock

ROOT = Path(__file__).resolve().parents[2]
SMALL = {"ns": [64, 128, 256, 512], "d_model": 8, "n_heads": 2, "loop_max_n": 64}

CONCURRENT_PEAK_BYTES = """
import threading
from functools import partial
import numpy as np
from measure import timing
import core
W = core.init_weights(core.AttentionConfig(d_model=8, n_heads=2, dtype="float32"))
wrong = []
def measure():
    for k in range(150):
        X = np.random.default_rng(k).normal(size=(64, 8)).astype(np.float32)
        peak = timing.peak_bytes(partial(core.attention, X, W, 2, keep={"A", "output"}))
        if peak < 2 * 64 * 64 * 4:  # less than the kept A: another thread stopped the count
            wrong.append(peak)
def rerun():
    for _ in range(15000):
        a = np.ones((100, 10)); a @ a.T
threads = [threading.Thread(target=f) for f in [measure] * 8 + [rerun] * 4]
[t.start() for t in threads]; [t.join() for t in threads]
print("survived,", len(wrong), "wrong peaks")
"""


def test_peak_bytes_from_many_session_threads_at_once_does_not_crash():
    # on the old code (tracemalloc started and stopped from every thread at once) this process
    # died with SIGSEGV, or, when it lived, another thread's stop cut a count short; it runs in
    # a child so that a crash fails only this test
    child = subprocess.run(
        [sys.executable, "-c", CONCURRENT_PEAK_BYTES],
        cwd=ROOT,  # (python -c puts the working folder on the path)
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert child.returncode == 0, f"exit {child.returncode}: {child.stderr[-2000:]}"
    assert child.stdout.strip() == "survived, 0 wrong peaks"


def _press_together(measurements, keys_and_args, sessions_per_key):
    """Every session presses at the same moment from its own thread; returns what each got."""
    barrier = threading.Barrier(len(keys_and_args) * sessions_per_key + 2)
    got, stop = {}, threading.Event()

    def press(key, args, session):
        barrier.wait()
        measurement = measurements.request(key, "cost", args, session)
        assert measurement.event.wait(120)
        got[session] = measurement

    def rerun():  # learners on other pages keep allocating meanwhile
        barrier.wait()
        while not stop.is_set():
            a = np.ones((200, 50))
            a @ a.T

    threads = [
        threading.Thread(target=press, args=(key, args, f"{key}-{i}"))
        for key, args in keys_and_args
        for i in range(sessions_per_key)
    ] + [threading.Thread(target=rerun) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads[:-2]:
        thread.join(timeout=180)
    stop.set()
    for thread in threads[-2:]:
        thread.join()
    return got


def test_a_class_pressing_measure_at_once_shares_one_measurement_in_a_child_process():
    runs = []

    def counted(job, args, on_step):
        runs.append(args)
        return run_in_child(job, args, on_step)

    measurements = MeasurementQueue(run=counted)
    got = _press_together(measurements, [(("cost", 8, 2), SMALL)], sessions_per_key=24)
    assert len(got) == 24 and len(runs) == 1  # one measurement, waited for by all 24
    shared = {id(m) for m in got.values()}
    assert len(shared) == 1
    measurement = next(iter(got.values()))
    assert measurement.state == "done" and measurement.learners == 24
    result = measurement.result
    assert result["n"] == SMALL["ns"]
    assert all(np.isfinite(result[name]).all() for name in ("attention", "rnn", "memory"))
    # memory measured in the child, not zero and not this process's: at n = 512 the kept A of
    # 2 heads alone is 2 * 512 * 512 float32 = 2 MB
    A_bytes = 2 * 512 * 512 * 4 / 2**20
    assert A_bytes <= result["memory"][-1] < 4 * A_bytes
    # a press within FRESH_S joins the finished one instead of measuring again, unless its sweeps
    # said the machine was too busy (these small n on a loaded machine can): then it measures
    # again (tests/server/test_growth.py holds both ways with a run that says which)
    again = measurements.request(("cost", 8, 2), "cost", SMALL, "late")
    if result["busy"]:
        assert again is not measurement and again.learners == 1
        assert again.event.wait(120) and len(runs) == 2
    else:
        assert again is measurement and again.learners == 25 and len(runs) == 1


def test_different_settings_are_measured_one_at_a_time():
    running, most = [0], [0]
    lock = threading.Lock()

    def one_at_a_time(job, args, on_step):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        try:
            return run_in_child(job, {**args, "ns": [64, 128]}, on_step)
        finally:
            with lock:
                running[0] -= 1

    measurements = MeasurementQueue(run=one_at_a_time)
    keys = [(("cost", d, 2), {**SMALL, "d_model": d}) for d in (4, 8, 16)]
    got = _press_together(measurements, keys, sessions_per_key=4)
    assert most[0] == 1
    assert len({id(m) for m in got.values()}) == 3
    assert all(m.state == "done" and m.learners == 4 for m in got.values())


def test_a_result_is_measured_again_once_it_is_stale_and_a_failure_is_reported():
    calls = []

    def run(job, args, on_step):
        calls.append(args)
        if args.get("fail"):
            raise RuntimeError("child exited with 1")
        return {"n": args["ns"]}

    clock = Clock()
    measurements = MeasurementQueue(run=run, clock=clock)
    first = measurements.request("k", "cost", {"ns": [1]}, "a")
    assert first.event.wait(60) and first.finished_at == clock.now
    clock.now += FRESH_S - 1
    assert measurements.latest("k") is first
    assert measurements.request("k", "cost", {"ns": [1]}, "b") is first
    assert len(calls) == 1
    clock.now += 1
    assert measurements.latest("k") is None
    second = measurements.request("k", "cost", {"ns": [1]}, "c")
    assert second is not first and second.event.wait(60) and len(calls) == 2
    clock.now += 10 * FRESH_S
    kept = measurements.request("kept", "cost", {"ns": [1]}, "a", fresh_s=float("inf"))
    assert kept.event.wait(60)
    clock.now += 10 * FRESH_S
    assert measurements.latest("kept") is kept  # kept as long as the server runs
    failed = measurements.request("bad", "cost", {"fail": True}, "a")
    assert failed.event.wait(60) and failed.state == "failed" and "exited" in failed.error
    retried = measurements.request("bad", "cost", {"fail": True}, "a")
    assert retried is not failed  # a failure is not kept: the next press measures again


def test_the_loop_pages_timing_table_is_measured_in_a_child_too():
    measurements = MeasurementQueue()
    args = {"d_model": 8, "n_heads": 2, "ns": [4, 16]}
    measurement = measurements.request(("loop_times",), "loop_times", args, "a")
    assert measurement.event.wait(120) and measurement.state == "done", measurement.error
    rows = measurement.result
    assert [row["n"] for row in rows] == [4, 16]
    for row in rows:  # no timing is compared here: bench/ does that
        assert all(0 < row[name] < 10 for name in ("matrix", "loop", "python"))


def test_the_queue_says_how_many_run_before_a_measurement():
    started, release = threading.Event(), threading.Event()

    def run(job, args, on_step):
        started.set()
        release.wait()  # the first runs until the test releases it, however slow the test is
        return {}

    measurements = MeasurementQueue(run=run)
    first = measurements.request("a", "cost", {}, "s1")
    try:
        assert started.wait(60)
        second = measurements.request("b", "cost", {}, "s2")
        third = measurements.request("c", "cost", {}, "s3")
        assert [measurements.queued_before(m) for m in (first, second, third)] == [0, 1, 2]
    finally:
        release.set()
    assert third.event.wait(60) and measurements.queued_before(third) == 0


def test_a_failing_child_reports_its_error():
    measurement = MeasurementQueue().request(("bad",), "cost", {"ns": [64], "d_model": 0}, "s")
    assert measurement.event.wait(60) and measurement.state == "failed"
    assert "exited with" in measurement.error


def test_a_measurement_runs_below_the_models_load_in_cpu_priority():
    """A class's Measure storm must not take the cores from the model's load and first passes
    (issue 67): the measurement's child runs at a lower priority (a higher nice) than the thread
    that loads the model, as Linux reads both."""
    from ui.work import model_load

    seen = []

    def on_step(done, n):  # the child is alive while it reports
        for child in (
            Path(f"/proc/{os.getpid()}/task/{threading.get_native_id()}/children")
            .read_text()
            .split()
        ):
            if b"measure.queue" in Path(f"/proc/{child}/cmdline").read_bytes():
                seen.append(os.getpriority(os.PRIO_PROCESS, int(child)))

    run_in_child("loop_times", {"d_model": 8, "n_heads": 2, "ns": [4, 16]}, on_step)
    loads = []

    def load_thread():
        model_load._give_way()
        loads.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))

    thread = threading.Thread(target=load_thread)
    thread.start()
    thread.join()
    own = os.getpriority(os.PRIO_PROCESS, 0)
    assert seen and set(seen) == {min(19, own + 19)}
    assert loads == [min(19, own + model_load.NICE)]
    assert seen[0] > loads[0] or own + model_load.NICE >= 19  # (a test run niced 9 or more)
