"""After Gemma's load the server hands the heap's freed pages back (ui/work/model_load.py): a
process that frees most of many mid-sized allocations, the rest kept between them, is resident
by far less once ``heap.give_back`` has run; the load and a model's pass take their temporaries
from the heap rather than faulting them in each time. In a child process, whose heap is its
own."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
from ui.kit import heap
from ui.work import model_load
kept, freed = [], []
for i in range(200_000):  # 2 kB each (malloc's, not Python's small-object arenas), 1 in 8 kept
    (kept if i % 8 == 0 else freed).append(bytes(2000) + bytes([i % 256]))
freed.clear()  # ~340 MB freed, in holes between the kept ones: not at the heap's top
before = model_load.rss()
heap.give_back()
print(before - model_load.rss())
"""


def test_freed_heap_pages_go_back_to_the_system_after_the_load():
    out = subprocess.run(
        [sys.executable, "-c", CHILD], cwd=ROOT, capture_output=True, text=True, check=True
    )
    returned_mb = int(out.stdout.split()[-1]) / 2**20
    assert returned_mb > 100, f"only {returned_mb:.0f} MB went back"


FAULTS = """
import resource, threading
import numpy as np
from ui.kit import heap, process
process.tune()  # the server's heap settings: every allocation from 1 MB mapped on its own

def faults(shape, rounds):  # float32 arrays of ``shape`` allocated, used, freed, again
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(rounds):
        a = np.empty(shape, dtype=np.float32); a.fill(1)
        b = a * 2; c = b + a
        del a, b, c
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
"""


def faults_in_child(program: str) -> list[int]:
    """The numbers ``program`` prints, run after FAULTS in a child process."""
    out = subprocess.run(
        [sys.executable, "-c", FAULTS + program], cwd=ROOT, capture_output=True, text=True,
        check=True,
    )  # fmt: skip
    return [int(x) for x in out.stdout.split()]


REUSED = """
BLOCK = 64 << 10  # a dequantising loop's shape: 256 kB allocated, freed, again
faults(BLOCK, 10)
plain = faults(BLOCK, 400)
with heap.reused():
    kept = faults(BLOCK, 400)
after = faults(BLOCK, 400)
print(plain, kept, after)
"""


def test_a_load_reuses_its_freed_blocks_instead_of_faulting_them_in_each_time():
    """heap.reused() (around the model's load): a block's freed temporaries stay for the next
    block, where glibc's 128 kB trim handed them back and the next faulted them in again; after
    it, the default again."""
    plain, kept, after = faults_in_child(REUSED)
    assert plain > 20_000, plain  # 400 rounds × 3 arrays × 64 pages, faulted in each time
    assert kept < plain / 20, (plain, kept)
    assert after > plain / 2, (plain, after)  # the default trim is back


PASSES = """
ROWS = (512, 640)  # a prefill's shape: [512, 640] float32 temporaries, 1.3 MB each
faults(ROWS, 5)
plain = faults(ROWS, 60)
with heap.for_passes():
    faults(ROWS, 5)
    lifted = faults(ROWS, 60)
    other_in, other_out = threading.Event(), threading.Event()
    def other():  # a second pass on the other core, still running after this one ends
        with heap.for_passes():
            other_in.set()
            other_out.wait(10)
    thread = threading.Thread(target=other); thread.start(); other_in.wait(10)
# this pass has ended, the other has not: the bar stays lifted for it
beside = faults(ROWS, 60)
other_out.set(); thread.join()
after = faults(ROWS, 60)
print(plain, lifted, beside, after)
"""


def test_a_models_pass_takes_its_arrays_from_the_heap_and_the_bar_comes_back_after_the_last():
    """heap.for_passes() (every turn at the model, ui/work/model_turns.py): with the server's
    bar at 1 MB, each 1.3 MB temporary of a prefill was mapped and its ~320 pages faulted in
    anew; within a pass they come from the heap, reused; with two passes at once the bar comes
    back only after both; after, every megabyte mapped on its own again."""
    plain, lifted, beside, after = faults_in_child(PASSES)
    assert plain > 60 * 3 * 300, plain  # 3 arrays a round, ~320 pages each, faulted each time
    assert lifted < plain / 20, (plain, lifted)
    assert beside < plain / 20, (plain, beside)
    assert after > plain / 2, (plain, after)
