"""The time rooms and their store go by: ``now()``, seconds on the system's clock.

Every reader calls ``now()`` when it reads the time and keeps no copy of ``source``, so that a test
can put a clock it moves by hand in ``source`` (tests/support/clock.py) instead of waiting.
"""

import time

source = time.time  # what now() reads: the system's clock, or a test's


def now() -> float:
    return source()
