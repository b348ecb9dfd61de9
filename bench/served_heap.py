"""A model's pass under the server's C heap: Gemma's and SmolLM2's 512-token prefill (the last
position's logits, as /generate asks) and one written token after 64, each in a fresh process
three ways, taking turns: glibc's own malloc ("default"), the server's settings
(ui/kit/process.py's tune(): every allocation of a megabyte or more mapped on its own,
"served"), and those with the pass inside heap.for_passes() as every turn at the model runs
("served, lifted"); the median (best) of 5 prefills and 20 steps, and each process's VmHWM.

Run: python bench/served_heap.py [--rounds 2]
Stops by itself.
"""

import argparse
import contextlib
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODES = ("default", "served", "served, lifted")
TEXT = "The quick brown fox jumps over the lazy dog. " * 60


def child(mode: str) -> None:
    sys.path.insert(0, str(ROOT))
    from ui.kit import heap, process

    if mode != "default":
        process.tune()  # before NumPy's import, as serve.py does
    import core

    lifted = heap.for_passes if mode == "served, lifted" else contextlib.nullcontext
    out = []
    for name in ("gemma3-270m", "smollm2-135m"):
        model = core.load_decoder(name)
        ids = model.encode(TEXT)[:512]
        prefills, steps = [], []
        for i in range(6):
            start = time.perf_counter()
            with lifted():
                model.forward(ids, rows=1)
            if i:  # (the first: warm-up)
                prefills.append(time.perf_counter() - start)
        cache = model.forward(ids[:64]).cache
        for _ in range(20):
            start = time.perf_counter()
            with lifted():
                model.forward([ids[64]], cache)
            steps.append(time.perf_counter() - start)
        prefills.sort()
        steps.sort()
        out.append(
            f"{name} prefill {prefills[2]:.2f} s ({prefills[0]:.2f}), step"
            f" {1000 * steps[10]:.0f} ms ({1000 * steps[0]:.0f})"
        )
    hwm = next(line for line in open("/proc/self/status") if line.startswith("VmHWM"))
    print(f"{mode:<15} " + " | ".join(out) + f" | VmHWM {int(hwm.split()[1]) >> 10} MB", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    for _ in range(args.rounds):
        for mode in MODES:
            subprocess.run([sys.executable, __file__, "--child", mode], check=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2])
    else:
        main()
