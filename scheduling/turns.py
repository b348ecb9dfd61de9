"""Turns at the model: the server's bounded pool for Gemma's work, fair between sessions.

Sixty students writing at once would otherwise start sixty forward passes on two cores, each slowed
by all the others, and a Play of 32 tokens would hold the cores while a student who pressed Next
once waits behind it. So every job (one forward pass: a prompt's, or one written token's) asks
for a turn first:

- at most ``slots`` jobs run at once (the cores); the others wait in the order they came;
- a session has at most one waiting job: a second press takes the first one's place in the line
  (a rerun abandons its job, and the session's next job within ``KEEP_PLACE_S`` gets its place);
- a job is one pass, so a Play (one token a turn) holds another student's Next for at most one
  token's time per slot;
- a waiting job is told how many jobs wait before it, as often as ``POLL_S``, through ``show``.

A job that starts while another holds a turn runs inside ``together()`` if given (the app's: BLAS on
one thread, so that two jobs on two cores do not each start two BLAS threads, whose spinning took
a third of the CPU when a class opened /inside and /generate at once); a job alone keeps every
core. Every job runs inside ``held()`` if given (the app's: the C heap kept for a pass's arrays,
ui/kit/heap.py), unless its turn is plain. A job that already holds a turn runs the jobs it calls
inside it without asking again. Who is asking (the session) and how to show the wait are the
caller's: ``who()`` and ``show()`` are set by the app (ui/work/model_turns.py); without them a
thread is its own session and waits silently.
"""

import threading
import time
from collections.abc import Callable
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass

POLL_S = 0.25  # how often a waiting job says where it is (and a rerun can interrupt it)
KEEP_PLACE_S = 5.0  # how long an abandoned job's place is kept for its session's next job


@dataclass(eq=False)
class Ticket:
    session: str
    left: float | None = None  # when its waiter gave up (a rerun): its place is kept a while


class Turns:
    def __init__(self, slots: int, who: Callable[[], str] | None = None, show=None, together=None,
                 held=None):  # fmt: skip
        self.slots = max(1, slots)
        self.who = who or (lambda: f"thread-{threading.get_ident()}")
        self.show = show  # () -> an object with .wait(ahead) and .done(), or None
        self.together = together  # () -> a context for a job that starts beside another, or None
        self.held = held  # () -> a context for every job while it holds its turn, or None
        self._cond = threading.Condition()
        self._line: list[Ticket] = []  # waiting jobs, in order
        self._running = 0
        self._held = threading.local()
        self.started = 0  # jobs that have had their turn, since the server started
        self.most_waiting = 0  # the longest line seen

    def waiting(self) -> int:
        with self._cond:
            return sum(ticket.left is None for ticket in self._line)

    def running(self) -> int:
        return self._running

    def _join(self, session: str) -> Ticket:
        """A place in line for ``session``: its waiting or abandoned job's place, else the end."""
        ticket = Ticket(session)
        for i, old in enumerate(self._line):
            if old.session == session:
                self._line[i] = ticket
                break
        else:
            self._line.append(ticket)
        self.most_waiting = max(self.most_waiting, len(self._line))
        return ticket

    def _first(self) -> Ticket | None:
        """The first job in line whose waiter is still there (old abandoned places dropped)."""
        now = time.monotonic()
        self._line = [t for t in self._line if t.left is None or now - t.left < KEEP_PLACE_S]
        return next((t for t in self._line if t.left is None), None)

    def _ahead(self, ticket: Ticket) -> int:
        before = self._line[: self._line.index(ticket)] if ticket in self._line else []
        return sum(t.left is None for t in before)

    @contextmanager
    def turn(self, plain: bool = False):
        """Wait for a turn at the model (the caller's session's one place in line), then hold it
        for the block. ``plain``: without ``held()`` (a training run's turn, whose work is done
        in its own process)."""
        if getattr(self._held, "depth", 0):  # a job inside a job: its turn is already held
            self._held.depth += 1
            try:
                yield
            finally:
                self._held.depth -= 1
            return
        shown, beside_another = self._wait(self._join_now())
        self._held.depth = 1
        try:  # from here the turn is held: whatever happens, it is given back
            if shown is not None:
                shown.done()  # (may raise: a rerun asked for meanwhile)
            with self.held() if self.held and not plain else nullcontext():
                with self.together() if beside_another and self.together else nullcontext():
                    yield
        finally:
            self._held.depth = 0
            with self._cond:
                self._running -= 1
                self._cond.notify_all()

    def _join_now(self) -> Ticket:
        with self._cond:
            ticket = self._join(self.who())
            self._cond.notify_all()  # a replaced ticket's waiter is gone; others may move up
            return ticket

    def _wait(self, ticket: Ticket):
        """Wait until ``ticket`` may run, and count it as running: (what showed the wait, whether
        another job was running when it started)."""
        shown = None
        try:
            while True:
                with self._cond:
                    if ticket not in self._line:
                        raise Replaced(ticket.session)
                    if self._running < self.slots and self._first() is ticket:
                        self._line.remove(ticket)
                        self._running += 1
                        self.started += 1
                        beside_another = self._running > 1
                        break
                    self._cond.wait(POLL_S)
                    if ticket not in self._line:
                        raise Replaced(ticket.session)
                    ahead = self._ahead(ticket)
                if self.show is not None:  # outside the lock: showing may raise (a rerun)
                    shown = shown or self.show()
                    shown.wait(ahead)
        except BaseException:  # a rerun stopped the waiter: its place is kept a while
            with self._cond:
                if ticket in self._line:
                    ticket.left = time.monotonic()
                self._cond.notify_all()
            raise
        return shown, beside_another


class Replaced(Exception):
    """The session asked for another job while this one waited: this one is not run."""
