"""Gemma 3 270M loaded once per process, in the background from the server's start (serve.py),
so that the first class to open /generate or /inside does not wait on a frozen page: a visitor
who comes before it is ready sees how long it has been loading, and the page draws itself when
it is. Without the server's start (`streamlit run app.py`) the first visit to a model page starts
it the same way; a class that never opens one never loads it.

The load's time and the process's resident memory before and after it are kept for the bench.
"""

import importlib.util
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import core
from core.decoder import PACKAGE
from ui.kit import heap

USUAL_S = 6.0  # about how long the load takes on two cores (bench/results: 4-7 s)


@dataclass
class Load:
    started: float | None = None  # time.monotonic() at its start
    seconds: float | None = None  # how long it took, once done
    rss_before: int | None = None  # bytes resident before it, and after
    rss_after: int | None = None
    error: Exception | None = None
    thread: threading.Thread | None = None


LOAD = Load()
_lock = threading.Lock()


def rss() -> int:
    """This process's resident memory in bytes (Linux's /proc)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def _load() -> None:
    # The load's thread gives way for the cores (Linux's nice, per thread): a class arriving at a
    # fresh serve.py has its first pages drawn while Gemma is read and dequantised beside them.
    # Its first renders by 4.2 s instead of 4.8-5.0 with the model drawn as soon (9.3 s).
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
    except (AttributeError, OSError):  # not Linux: the load runs at the pages' priority
        pass
    LOAD.rss_before = rss()
    try:
        core.load_decoder()
    except Exception as error:  # the page says it (a missing package: InputError)
        LOAD.error = error
    heap.give_back()  # the GGUF's reading leaves ~40 MB of freed pages resident otherwise
    LOAD.seconds = time.monotonic() - LOAD.started
    LOAD.rss_after = rss()


def start() -> bool:
    """Begin loading in a thread of its own, once, when the model's packages are installed."""
    with _lock:
        if LOAD.thread is not None or importlib.util.find_spec(PACKAGE) is None:
            return False
        LOAD.started = time.monotonic()
        LOAD.thread = threading.Thread(target=_load, name="gemma-load", daemon=True)
        LOAD.thread.start()
        return True


def loading() -> bool:
    """True while the background load runs."""
    return LOAD.thread is not None and LOAD.thread.is_alive()


def elapsed() -> float:
    return 0.0 if LOAD.started is None else time.monotonic() - LOAD.started


def model():
    """The model: the background load's, waited for if it runs, else loaded here (once)."""
    thread = LOAD.thread
    if thread is not None:
        thread.join()
    return core.load_decoder()
