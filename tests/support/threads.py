"""Threads for the tests of the server's shared machinery (scheduling/turns.py and batches.py):
started in order, and joined with a bound so that a deadlock fails a test instead of hanging it."""

import threading
import time


def start_all(targets, gap_s: float = 0.01) -> list[threading.Thread]:
    """One thread per target, started ``gap_s`` apart (in this order)."""
    threads = [threading.Thread(target=target) for target in targets]
    for thread in threads:
        thread.start()
        time.sleep(gap_s)
    return threads


def join_all(threads, limit_s: float = 10) -> None:
    for thread in threads:
        thread.join(limit_s)
        assert not thread.is_alive(), "a thread is still waiting: a deadlock?"
