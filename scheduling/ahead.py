"""Work done before it is asked for: a session's likely next request, on background threads.

A student who reads a written token presses Next a few seconds later, and a Play asks for its next
token a second later. The model's pass for that token can run in between, so that the press finds
it done and draws at once, instead of waiting for a batch (and its turn at the cores) behind a
class. What runs here is the same shared, single-flight work the press would do
(ui/kit/shared_cache.py), so a press that comes while it runs waits for that one pass, never a
second.

- Each session has at most one job waiting here: a newer one takes its place (the learner has
  moved on; the older guess is no longer the next request).
- ``workers`` threads take the waiting jobs in the order they came. Several run at once, so that
  their passes go out together (scheduling/batches.py), each after its turn (scheduling/turns.py).
- A job that fails is dropped: the press does the same work in the open, and says why there.
"""

import threading
from collections import OrderedDict
from collections.abc import Callable


class Ahead:
    def __init__(self, workers: int):
        self.workers = max(1, workers)
        self._cond = threading.Condition()
        self._waiting: OrderedDict[str, Callable[[], object]] = OrderedDict()
        self._threads: list[threading.Thread] = []
        self._busy = 0  # jobs running
        self.done = 0  # jobs run (for the benches and the tests)
        self.replaced = 0  # jobs a newer one of the same session took the place of
        self.failed = 0

    def submit(self, session: str, job: Callable[[], object]) -> None:
        """Run ``job()`` in the background, in place of ``session``'s waiting job if it has one."""
        with self._cond:
            if self._waiting.pop(session, None) is not None:
                self.replaced += 1
            self._waiting[session] = job
            if len(self._threads) < self.workers:
                thread = threading.Thread(target=self._work, name="ahead", daemon=True)
                self._threads.append(thread)
                thread.start()
            self._cond.notify()

    def waiting(self) -> int:
        with self._cond:
            return len(self._waiting)

    def idle(self, timeout: float) -> bool:
        """Wait until no job waits or runs (at most ``timeout`` s): whether that came."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._waiting and not self._busy, timeout)

    def _work(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._waiting)
                _, job = self._waiting.popitem(last=False)
                self._busy += 1
            try:
                job()
            except Exception:  # noqa: BLE001 (a guess that failed: the press will say why)
                self.failed += 1
            finally:
                with self._cond:
                    self._busy -= 1
                    self.done += 1
                    self._cond.notify_all()
