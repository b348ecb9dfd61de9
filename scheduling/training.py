"""Training runs of the tiny decoder (core.tiny) shared by the whole server, in the background.

A class presses Train on the same settings together: the run is made once and every session that
asks follows it (single flight, keyed by its settings). Each run trains in a child process
(``python -m scheduling.training``), niced like the measurements, so that it holds neither the
server's GIL nor its reruns; at most ``MAX_RUNS`` (the cores) children live at once and the other
runs wait in order. The child prints one line of JSON per step, and a snapshot's attention maps
and head scores when it takes one; the server keeps them in the run, where a page reads them as
they come.

The same pool as Gemma's work: given ``turns`` (the app gives the model's, ui/work/model_turns.py),
a child trains only while its run holds a turn there, about ``TURN_S`` of steps a turn (one
written token's time), then waits for the next. So training and the class's writing share the
cores in the order they asked, and a training run holds a student's Next for at most one turn.

Stop: a session stops following. A run that no session follows any more is ended within a step
(its child killed); one that others still follow goes on for them.
"""

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from core import tiny
from core.threads import on_one_core

ROOT = Path(__file__).resolve().parents[1]
MAX_RUNS = max(1, os.cpu_count() or 1)  # children alive at once, each training on one core
WATCH_S = 2.0  # a page drawing a run live redraws it every 0.5 s: gone this long, it has closed
KEEP_RUNS = 32  # finished runs kept for sessions that ask for the same settings again
NICE = 10  # the child yields the CPU to the server's reruns
TURN_S = 0.06  # the steps a child trains in one turn at the cores: about one written token's time
TURN_ENDS = "turn ends"  # the child's line after each turn's steps


@dataclass(frozen=True)
class Settings:
    """What a run trains: the task, the model's sizes, the steps, the seed and ÷√d_head."""

    task: str
    d_model: int
    n_heads: int
    n_layers: int
    steps: int
    seed: int = 0
    scale: bool = True


@dataclass(eq=False)
class Run:
    """One run's state, shared by every session that follows it."""

    settings: Settings
    state: str = "queued"  # queued -> running -> done | stopped | failed
    steps: list = field(default_factory=list)  # per step: (step, loss, answer loss, seconds)
    snapshots: list = field(default_factory=list)  # dicts: step, attention, previous, induction
    seconds: float | None = None  # the training's own wall time, once done
    error: str | None = None
    sessions: set = field(default_factory=set)
    seen: dict = field(default_factory=dict)  # session -> when its page last drew the run live
    child: subprocess.Popen | None = None
    event: threading.Event = field(default_factory=threading.Event)

    @property
    def active(self) -> bool:
        return self.state in ("queued", "running")

    def until(self, seconds: float) -> tuple[np.ndarray, list]:
        """What the run had trained ``seconds`` after it started: its steps [k, 4] (step, loss,
        answer loss, seconds) and its snapshots up to the last of them. A page that replays a
        finished run shows it at the pace it trained."""
        rows = np.asarray(list(self.steps), dtype=float).reshape(-1, 4)
        rows = rows[rows[:, 3] <= seconds]
        last = rows[-1, 0] if len(rows) else -1
        return rows, [snap for snap in list(self.snapshots) if snap["step"] <= last]

    def history(self, seconds: float = float("inf")) -> list:
        """What ``until(seconds)`` holds, as core.tiny's Progress (induction scores on the
        snapshot steps), for its loss_drop_step and head_step."""
        rows, snapshots = self.until(seconds)
        by_step = {snap["step"]: snap for snap in snapshots}
        history = []
        for step, loss, answer, at in rows:
            induction = by_step.get(int(step), {}).get("induction")
            induction = None if induction is None else np.asarray(induction)
            history.append(tiny.Progress(int(step), loss, answer, at, induction=induction))
        return history

    def drop_step(self, seconds: float = float("inf")) -> int | None:
        """The step at which the answer's loss first fell below half of chance (None: not yet)."""
        chance = tiny.TASKS[self.settings.task].chance
        return tiny.loss_drop_step(self.history(seconds), chance)


def child_lines(settings: Settings):
    """The child's side: train and print each step (and each snapshot) as one line of JSON."""
    task = tiny.TASKS[settings.task]
    params = tiny.init(settings.seed, task.vocab, task.n, settings.d_model, settings.n_heads,
                       settings.n_layers)  # fmt: skip
    for p in tiny.train(params, task, settings.steps, n_heads=settings.n_heads,
                        seed=settings.seed, scale=settings.scale):  # fmt: skip
        line = {"step": p.step, "loss": p.loss, "answer_loss": p.answer_loss, "s": p.seconds}
        if p.attention is not None:
            line["attention"] = np.round(p.attention, 4).tolist()
            line["previous"] = p.previous.tolist()
            line["induction"] = None if p.induction is None else p.induction.tolist()
        yield json.dumps(line)


def _read(run: Run, turns=None) -> None:
    """Start the child and keep its lines in ``run`` until it ends or is killed, letting it train
    a turn's steps at a time, each in a turn of ``turns`` (None: one turn without end)."""
    order = json.dumps(run.settings.__dict__)
    with tempfile.TemporaryFile("w+") as errors:
        run.child = subprocess.Popen(
            [sys.executable, "-m", "scheduling.training", order],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
        )
        more = True
        while more:
            with nullcontext() if turns is None else turns.turn(plain=True):  # (the steps
                # run in the child: no heap of this process's to keep for them)
                more = _one_turn(run, "go" if turns is not None else "go on")
        code = run.child.wait()
        if code != 0 and run.state == "running":
            errors.seek(0)
            raise RuntimeError(f"training exited with {code}: {errors.read()[-500:]}")


def _one_turn(run: Run, order: str) -> bool:
    """Tell the child to train (``go``: one turn's steps; ``go on``: to the end) and keep its lines
    until the turn ends; False once the child has ended (or was killed)."""
    try:
        run.child.stdin.write(order + "\n")
        run.child.stdin.flush()
    except (BrokenPipeError, ValueError):  # the child has ended, or been stopped
        return False
    for text in run.child.stdout:
        if text.strip() == TURN_ENDS:
            return True
        line = json.loads(text)
        run.steps.append((line["step"], line["loss"], line["answer_loss"], line["s"]))
        run.seconds = line["s"]
        if "attention" in line:
            line["attention"] = np.asarray(line.pop("attention"))
            run.snapshots.append(line)
    return False


class TrainingRuns:
    """Shared, single-flight training runs (see the module's docstring)."""

    def __init__(self, max_runs: int = MAX_RUNS, turns=None):
        self.max_runs, self.turns = max_runs, turns
        self._lock = threading.Lock()
        self._by_settings: dict[Settings, Run] = {}
        self._waiting: deque[Run] = deque()
        self._running = 0

    def request(self, settings: Settings, session: str) -> Run:
        """The run of ``settings`` that ``session`` follows: one under way or finished, else a
        new one, queued. A stopped or failed run is made again."""
        with self._lock:
            run = self._by_settings.get(settings)
            if run is None or run.state in ("stopped", "failed"):
                run = Run(settings)
                self._by_settings[settings] = run
                self._forget_old()
                self._waiting.append(run)
                self._start_waiting()
            run.sessions.add(session)
            return run

    def watching(self, run: Run, session: str, now: float) -> int:
        """``session``'s page draws ``run`` live at ``now`` (time.monotonic()): how many pages
        have drawn it within WATCH_S. A closed tab stops drawing it, and drops out of the count
        (a session that asked for the run stays among its ``sessions`` until it stops it)."""
        with self._lock:
            run.seen[session] = now
            for other, when in list(run.seen.items()):
                if now - when > WATCH_S:
                    del run.seen[other]
            return len(run.seen)

    def latest(self, settings: Settings) -> Run | None:
        with self._lock:
            return self._by_settings.get(settings)

    def ahead(self, run: Run) -> int:
        """How many queued runs start before this one (0 once it runs)."""
        with self._lock:
            return self._waiting.index(run) + 1 if run in self._waiting else 0

    def stop(self, run: Run, session: str) -> None:
        """``session`` stops following ``run``; with no one left it ends within a step."""
        with self._lock:
            run.sessions.discard(session)
            if run.sessions or not run.active:
                return
            if run in self._waiting:
                self._waiting.remove(run)
            run.state = "stopped"
            child = run.child
        if child is not None and child.poll() is None:
            child.kill()
        run.event.set()

    def _forget_old(self) -> None:
        finished = [s for s, r in self._by_settings.items() if not r.active]
        for settings in finished[: max(0, len(self._by_settings) - KEEP_RUNS)]:
            del self._by_settings[settings]

    def _start_waiting(self) -> None:
        """Under the lock: start queued runs while fewer than max_runs train."""
        while self._waiting and self._running < self.max_runs:
            run = self._waiting.popleft()
            run.state = "running"
            self._running += 1
            threading.Thread(target=self._train, args=(run,), daemon=True).start()

    def _train(self, run: Run) -> None:
        try:
            _read(run, self.turns)
        except Exception as error:  # told to every session that follows it
            run.error, run.state = str(error), "failed"
        with self._lock:
            if run.state == "running":
                run.state = "done"
            self._running -= 1
            self._start_waiting()
        run.event.set()


def main(argv) -> None:
    """``python -m scheduling.training '{"task": "repeat", ...}'``: one line of JSON per step,
    on one core (small matrices gain nothing from BLAS's threads, and two runs share two cores).
    It trains when told on stdin: ``go``, about TURN_S of steps then the line TURN_ENDS; ``go
    on``, to the end."""
    os.nice(NICE)
    settings = Settings(**json.loads(argv[0]))
    lines = child_lines(settings)
    with on_one_core():
        while order := sys.stdin.readline().strip():
            started = time.perf_counter()
            for line in lines:
                print(line, flush=True)
                if order == "go" and time.perf_counter() - started >= TURN_S:
                    break
            else:
                return  # trained to the end
            print(TURN_ENDS, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
