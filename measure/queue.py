"""Measurements shared by the whole server: one at a time, each in a child process, one result per
setting for every learner who asks.

A class presses the cost page's Measure button together. Run in each session's thread, 24
measurements would share two cores, every one of them slow and its timings spoiled by the others,
and each would start and stop tracemalloc, which is process-wide: concurrent starts and stops
crash CPython (a segmentation fault) while other threads allocate NumPy arrays. The loop-vs-matrix
page's timing table has the same shape, and the flash page's memory chart uses tracemalloc too.
So, for every job in JOBS:

- a press asks ``QUEUE.request(key, session)``; a measurement of the same settings that is
  queued, running, or finished less than ``FRESH_S`` ago is joined instead of repeated;
- one worker thread runs the queued measurements one after another, each in a child process
  (``python -m measure.queue``), where tracemalloc and the timed loops touch nothing of the
  server's, and where the GIL they hold is not the server's;
  the child runs at a lower CPU priority, so learners' reruns come first;
- every learner who asked is counted, and sees the same result, with when it was measured.
"""

import importlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FRESH_S = 600  # a result is reused for this long, for the same settings
NICE = 19  # the child yields the CPU to the server's reruns and to the model's load (niced 10,
# ui/work/model_load.py), which at 10 too it shared a core with evenly. Its figures are CPU
# times, which waiting does not stretch. (Under a storm of 120 the model's pages still drew at
# 31-34 s: what holds them is not this child; bench/results/issue67_round1.txt)
JOBS = {  # job -> the function it runs, as module:function
    "cost": "measure.cost:measure_cost",
    "loop_times": "measure.loop_times:measure_loop_times",
    "flash_memory": "measure.flash_memory:measure_flash_memory",
}


@dataclass(eq=False)
class Measurement:
    """One measurement's state, shared by every session that asked for it."""

    key: tuple
    job: str
    args: dict
    fresh_s: float = FRESH_S
    state: str = "queued"  # queued -> running -> done | failed
    progress: float = 0.0
    n: int | None = None  # the n being measured
    result: dict | None = None
    error: str | None = None
    finished_at: float | None = None  # the queue's clock when done
    sessions: set = field(default_factory=set)
    event: threading.Event = field(default_factory=threading.Event)

    @property
    def learners(self) -> int:
        return len(self.sessions)

    def fresh(self, now: float) -> bool:
        """Joined or reused: while it runs, and once done for ``fresh_s`` seconds, unless its
        result says the machine was too busy for it (``"busy": true``): a new press measures
        again."""
        if self.state in ("queued", "running"):
            return True
        busy = isinstance(self.result, dict) and self.result.get("busy", False)
        return self.state == "done" and not busy and now - self.finished_at < self.fresh_s


def run_in_child(job: str, args: dict, on_step):
    """Run the function JOBS[job] names, with ``args``, in a child process; ``on_step(done, n)``
    for its progress."""
    order = json.dumps({"job": job, "args": args})
    with tempfile.TemporaryFile("w+") as errors:  # a file: a full stderr pipe would stall the child
        child = subprocess.Popen(
            [sys.executable, "-m", "measure.queue", order],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
        )
        result = None
        for line in child.stdout:
            message = json.loads(line)
            if "result" in message:
                result = message["result"]
            else:
                on_step(message["done"], message["n"])
        if child.wait() != 0 or result is None:
            errors.seek(0)
            raise RuntimeError(
                f"measurement exited with {child.returncode}: {errors.read()[-500:]}"
            )
    return result


class MeasurementQueue:
    """Single-flight measurements keyed by their settings (see the module's docstring); how fresh
    a result is goes by ``clock`` (seconds, the system's clock)."""

    def __init__(self, run=run_in_child, clock: Callable[[], float] = time.time):
        self.run, self.clock = run, clock
        self._lock = threading.Lock()
        self._by_key: dict[tuple, Measurement] = {}
        self._queue: deque[Measurement] = deque()
        self._worker: threading.Thread | None = None

    def request(
        self, key: tuple, job: str, args: dict, session: str, fresh_s: float = FRESH_S
    ) -> Measurement:
        """The measurement of ``key`` that ``session`` shares: a fresh one, or a new one queued
        (the function ``JOBS[job]`` names, reused for ``fresh_s`` seconds once done)."""
        with self._lock:
            measurement = self._by_key.get(key)
            if measurement is None or not measurement.fresh(self.clock()):
                measurement = Measurement(key, job, args, fresh_s)
                self._by_key[key] = measurement
                self._queue.append(measurement)
                if self._worker is None:
                    self._worker = threading.Thread(target=self._work, daemon=True)
                    self._worker.start()
            measurement.sessions.add(session)
            return measurement

    def latest(self, key: tuple) -> Measurement | None:
        """A finished measurement of ``key`` that is still fresh, else None."""
        with self._lock:
            measurement = self._by_key.get(key)
        if measurement and measurement.state == "done":
            if measurement.fresh(self.clock()):
                return measurement
        return None

    def queued_before(self, measurement: Measurement) -> int:
        """How many measurements run before this one starts (the queue's head is the one
        running; 0 once this one runs)."""
        with self._lock:
            return self._queue.index(measurement) if measurement in self._queue else 0

    def _work(self) -> None:
        while True:
            with self._lock:
                if not self._queue:
                    self._worker = None
                    return
                measurement = self._queue[0]
                measurement.state = "running"

            def on_step(done, n, measurement=measurement):
                measurement.progress, measurement.n = done, n

            try:
                result = self.run(measurement.job, measurement.args, on_step)
            except Exception as error:  # reported to every waiting session
                measurement.error, measurement.state = str(error), "failed"
            else:
                measurement.result, measurement.progress = result, 1.0
                measurement.finished_at, measurement.state = self.clock(), "done"
            with self._lock:
                self._queue.popleft()
            measurement.event.set()


QUEUE = MeasurementQueue()  # one per server process


def main(argv) -> None:
    """``python -m measure.queue '{"job": "cost", "args": {...}}'``: one line of JSON per step
    ({"done", "n"}), then {"result": ...}."""
    os.nice(NICE)
    order = json.loads(argv[0])
    module, _, name = JOBS[order["job"]].partition(":")
    measure = getattr(importlib.import_module(module), name)

    def report(done, n):
        print(json.dumps({"done": done, "n": n}), flush=True)

    print(json.dumps({"result": measure(**order["args"], on_step=report)}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
