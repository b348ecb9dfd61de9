"""ui/kit/shared_cache.py: identical concurrent calls build once; keys follow values; bounded."""

import threading
import time

import numpy as np

from ui.kit.shared_cache import shared


def test_concurrent_identical_calls_build_once():
    builds = []

    @shared(max_entries=4)
    def slow_square(M):
        builds.append(1)
        time.sleep(0.2)  # long enough for every thread to arrive while the first one builds
        return M @ M

    M = np.arange(4.0).reshape(2, 2)
    results = []
    threads = [
        threading.Thread(target=lambda: results.append(slow_square(M.copy()))) for _ in range(12)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(builds) == 1 and len(results) == 12
    assert all(r is results[0] for r in results)
    np.testing.assert_array_equal(results[0], [[2, 3], [6, 11]])


def test_keys_follow_the_values_and_the_cache_stays_bounded():
    builds = []

    @shared(max_entries=3)
    def total(M, *, scale=1.0, labels=()):
        builds.append(1)
        return float(M.sum()) * scale

    a = np.ones((2, 2))
    assert total(a) == 4 and total(a.copy()) == 4 and len(builds) == 1  # same bytes, one build
    assert total(a * 2) == 8 and len(builds) == 2  # other values, another entry
    assert total(a, scale=3.0) == 12 and len(builds) == 3  # options are part of the key
    assert total(a.astype(np.float32)) == 4 and len(builds) == 4  # so is the dtype
    assert total.cache_len() == 3  # the oldest was dropped
    total(a)
    assert len(builds) == 5  # ... and is rebuilt when asked for again
