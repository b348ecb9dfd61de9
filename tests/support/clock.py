"""A clock the test moves by hand, in place of the system's: for expiry, presence, how fresh a
measurement is and a player's timer, without sleeping."""

import time


class Clock:
    """Seconds that pass only when the caller says so (``clock.now += 1``)."""

    def __init__(self, now: float | None = None):
        self.now = time.time() if now is None else now

    def __call__(self) -> float:
        return self.now
