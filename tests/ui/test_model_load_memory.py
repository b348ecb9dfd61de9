"""After Gemma's load the server hands the heap's freed pages back (ui/work/model_load.py): a
process that frees most of many mid-sized allocations, the rest kept between them, is resident
by far less once ``heap.give_back`` has run. In a child process, whose heap is its own."""

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
