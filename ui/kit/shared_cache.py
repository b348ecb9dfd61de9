"""A bounded, thread-safe cache shared by every session of the server, computing each entry once.

Figures are the costly part of a rerun (Plotly validates every property it is given), and a class
following one teacher's link asks for the same figures 30-60 times at once. ``shared`` keys a call
on its arguments (arrays by a digest of their bytes), lets the first caller build the value while
the others wait for it, and keeps at most ``max_entries`` values, dropping the least recently used.
Callers get the same object: they must not change it.
"""

import dataclasses
import hashlib
import threading
from collections import OrderedDict
from contextlib import nullcontext
from functools import update_wrapper

import numpy as np

CLASS = 128  # learners each with a sentence of their own (issue 67: a class of 120 on one server)
# whose walkthrough traces and figures the server keeps at once: sized below the class, every
# rerun of a class that reruns together found its own evicted and built it again (step "A V",
# 3 charts each: 83 ms of script CPU a rerun against 26 with them kept; bench/rerun_profile.py),
# for some 0.1 MB a learner kept (a 6-token trace 11 KiB, a chart's figure 35 KiB)


def _fingerprint(value) -> object:
    if isinstance(value, np.ndarray):
        data = np.ascontiguousarray(value)
        return ("array", data.shape, data.dtype.str, hashlib.blake2b(data.tobytes()).digest())
    if isinstance(value, range):
        return ("range", value.start, value.stop, value.step)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_fingerprint(item) for item in value))
    if isinstance(value, (set, frozenset)):
        return ("set", tuple(sorted(_fingerprint(item) for item in value)))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((k, _fingerprint(v)) for k, v in value.items())))
    if value is None or isinstance(value, (str, int, float, bool, np.generic)):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):  # by its fields
        fields = ((f.name, getattr(value, f.name)) for f in dataclasses.fields(value))
        return (type(value).__name__, tuple((name, _fingerprint(v)) for name, v in fields))
    if hasattr(value, "to_numpy"):  # a pandas Series or Index: by its values
        return _fingerprint(np.asarray(value.to_numpy()))
    raise TypeError(f"shared cache: cannot key on {type(value).__name__}")


class Shared:
    """A function's values, built once per key and kept (see the module's docstring)."""

    def __init__(self, build, max_entries: int, turns=None):
        self.build, self.max_entries, self.turns = build, max_entries, turns
        self.entries: OrderedDict = OrderedDict()
        self.building: dict = {}  # key -> lock held while the first caller builds it
        self.lock = threading.Lock()
        self.builds = 0  # values built since the server started (each by one caller)
        update_wrapper(self, build)

    def __call__(self, *args, **kwargs):
        key = _fingerprint((args, kwargs))
        while True:
            with self.lock:
                if key in self.entries:
                    self.entries.move_to_end(key)
                    return self.entries[key]
                key_lock = self.building.get(key)
            if key_lock is not None:  # being built: wait for that build, then look again
                with key_lock:
                    continue
            with self.turns.turn() if self.turns is not None else nullcontext():
                with self.lock:
                    if key in self.entries or key in self.building:  # while this one waited
                        continue
                    key_lock = self.building[key] = threading.Lock()
                    key_lock.acquire()
                try:
                    value = self.build(*args, **kwargs)
                    self.builds += 1  # (under the key's lock: one builder at a time)
                    return self._keep(key, value)
                finally:
                    with self.lock:
                        self.building.pop(key, None)
                    key_lock.release()

    def _keep(self, key, value):
        with self.lock:
            self.entries[key] = value
            while len(self.entries) > self.max_entries:
                self.entries.popitem(last=False)
        return value

    def peek(self, *args, **kwargs):
        """The value kept for these arguments, or None: nothing is built."""
        with self.lock:
            return self.entries.get(_fingerprint((args, kwargs)))

    def put(self, value, *args, **kwargs):
        """Keep ``value`` for these arguments (built along with something else)."""
        return self._keep(_fingerprint((args, kwargs)), value)

    def cache_len(self) -> int:
        return len(self.entries)

    def cache_clear(self) -> None:
        with self.lock:
            self.entries.clear()


def shared(max_entries: int, turns=None):
    """Keep a function's values (``max_entries`` at most). ``turns`` (scheduling.turns.Turns): a
    build waits its turn at the model first; a caller who finds the value being built waits for
    that build without a turn of its own."""
    return lambda build: Shared(build, max_entries, turns)
