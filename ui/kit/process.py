"""The server process's settings for a class, the same on both entry points: serve.py calls
``tune()`` before its imports, app.py before preload.py (for `streamlit run app.py`, where no
code of the app runs before the first visitor's script). Once per process; later calls do
nothing.
"""

import gc
import os
import sys

from ui.kit import heap

_done = False
MAP_FROM = 1 << 20  # the C heap's bar: every allocation from 1 MB mapped on its own (tune())


def tune() -> bool:
    """Set them, once; True if this call did (False: done already)."""
    global _done
    if _done:
        return False
    _done = True
    # OpenBLAS's threads, once a product is done, spin for 2^28 cycles (about 0.1 s) waiting for
    # the next one before they sleep: between a class's passes they took a core from the pages
    # being drawn. 2^18 cycles (about 0.1 ms) still covers the gaps inside one pass. A class on
    # /generate (60 students) used 86-89 CPU-s without it and 60 with it (the same code; 67 at
    # 2^4, where waking the threads costs), and one token alone took 55 ms instead of 63
    # (classroom_issue42_round4.txt in bench/results/). OpenBLAS reads it once, as NumPy loads
    # it: so before NumPy's import (Streamlit's server does not import NumPy itself).
    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "18")
    # A class's burst (every student's page rerun at once after a teacher's change) makes many
    # short-lived objects. Collected at Python's default 700 young objects, enough of them
    # outlived a collection to reach the old generation, whose full collections (75-100 ms each:
    # the tokenizer's dictionary, Plotly, the models) came three times in one room bench. From
    # 20 000, such a run spent 0.14-0.29 CPU s collecting instead of 0.60, no full collection
    # (bench/results/, issue 24 round 7).
    gc.set_threshold(20_000, 10, 10)
    # In that burst 60 script threads take turns holding the GIL. At Python's default 5 ms each
    # run of ~25 ms is cut about five times, each cut a thread switch with a cold cache and a
    # chance to stall others on Streamlit's config lock (asked on every element). Cut every 50 ms,
    # the room bench's p95 over 8 alternated runs was 1.41-2.23 s (median 1.77, 5 met) against
    # 1.45-2.24 s (median 2.14, 3 met); every-page reruns and the measure storm held
    # (bench/results/, issue 24 round 8).
    sys.setswitchinterval(0.05)
    # Those 60 threads, each allocating on its own, would spread the C heap over up to 16 arenas
    # on two cores, each keeping what was freed in it resident (ui/kit/heap.py).
    heap.limit_arenas(2)
    # Arrays of 1 MB or more (a model's logits: 1 MB a row) mapped on their own and handed back
    # when freed (ui/kit/heap.py): a class on every page peaked at 1,604-1,621 MB without it and
    # 1,576-1,577 MB with it; Gemma's steps and lens took the same time (within 4%).
    heap.map_from(MAP_FROM)  # (a model's passes lift it while they run: heap.for_passes)
    return True
