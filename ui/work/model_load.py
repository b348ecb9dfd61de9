"""Each decoder loaded once per process in the background: Gemma 3 270M from the server's start
(serve.py), so that the first class to open /generate or /inside does not wait on a frozen page;
another model (SmolLM2) when a learner first chooses it. A visitor who comes before it is ready
sees how long it has been loading, and the page draws itself when it is. Without the server's
start (`streamlit run app.py`) the first visit to a model page starts Gemma's the same way; a
class that never opens one never loads it, nor a model nobody chooses.

Each load's time and the process's resident memory before and after it are kept for the bench.
"""

import importlib.util
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import core
from core.lessons import model_reading
from ui.kit import heap


@dataclass
class Load:
    started: float | None = None  # time.monotonic() at its start
    seconds: float | None = None  # how long it took, once done
    rss_before: int | None = None  # bytes resident before it, and after
    rss_after: int | None = None
    error: Exception | None = None
    thread: threading.Thread | None = None


LOADS: dict[str, Load] = {}  # by the registry's name, made at each model's first start
_lock = threading.Lock()


def load_of(name: str) -> Load:
    """``name``'s load (not begun: an empty one)."""
    with _lock:
        return LOADS.setdefault(name, Load())


NICE = 10  # the load's thread and its first passes (a measurement's child: 19, below it)


def rss() -> int:
    """This process's resident memory in bytes (Linux's /proc)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def _load(name: str) -> None:
    # The load's thread gives way for the cores (Linux's nice, per thread): a class arriving at a
    # fresh serve.py has its first pages drawn while Gemma is read and dequantised beside them.
    # Its first renders by 4.2 s instead of 4.8-5.0 with the model drawn as soon (9.3 s).
    _give_way()
    load = load_of(name)
    load.rss_before = rss()
    try:
        with heap.reused():  # a block's temporaries reused, not faulted in anew; and after, the
            # freed pages given back (the GGUF's reading left ~40 MB of them resident)
            model = core.load_decoder(name)
    except Exception as error:  # the page says it (a missing package: InputError)
        load.error = error
    else:
        threading.Thread(
            target=_after, args=(name, model), name=f"{name}-after", daemon=True
        ).start()
    load.seconds = time.monotonic() - load.started
    load.rss_after = rss()


def _give_way() -> None:
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICE)
    except (AttributeError, OSError):  # not Linux: the load runs at the pages' priority
        pass


def _after(name: str, model) -> None:
    """What the model's pages' first runs would each do otherwise, done once, as soon as the
    model is ready: the pieces /inside draws its repeated sequence from (0.3 s over
    Gemma's vocabulary), and, beside the first model, the others' facts and tokenizers that
    /generate's K/V section compares (0.1 and 0.14 s for SmolLM2's header). In a thread of its
    own, given way like the load's: the pages do not wait for it, and one that asks meanwhile
    waits for the header being read rather than reading it again (core/decoder.py)."""
    _give_way()
    try:
        model_reading.readable_pieces(model)
        if name == first():
            for other in core.decoder_names():
                if other != name:
                    core.decoder_facts(other)
                    core.decoder_tokenizer(other)
    except Exception:  # noqa: BLE001 (a head start only: a page that needs it says what failed)
        pass


def start(name: str) -> bool:
    """Begin loading ``name`` in a thread of its own, once, when its package is installed."""
    package = core.decoder_entry(name).package
    with _lock:
        load = LOADS.setdefault(name, Load())
        if load.thread is not None or importlib.util.find_spec(package) is None:
            return False
        load.started = time.monotonic()
        load.thread = threading.Thread(target=_load, args=(name,), name=f"{name}-load",
                                       daemon=True)  # fmt: skip
        load.thread.start()
        return True


def first() -> str:
    """The model the pages open on and the server loads at its start: the registry's first."""
    return core.first_decoder()


def start_first() -> bool:
    return start(first())


def loading(name: str) -> bool:
    """True while ``name``'s background load runs."""
    thread = load_of(name).thread
    return thread is not None and thread.is_alive()


def elapsed(name: str) -> float:
    started = load_of(name).started
    return 0.0 if started is None else time.monotonic() - started


def usual_s(name: str) -> float:
    """About how long ``name``'s load takes on two cores (the registry's)."""
    return core.decoder_entry(name).load_s


def model(name: str):
    """The model ``name``: its background load's, waited for if it runs, else loaded here."""
    thread = load_of(name).thread
    if thread is not None:
        thread.join()
    return core.load_decoder(name)
