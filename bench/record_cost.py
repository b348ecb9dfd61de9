"""Record the cost page's measurement once (default settings) into assets/cost_recorded.json: the
page shows it, labelled as recorded, until a learner presses Measure.

    python -m bench.record_cost            # about a minute on two cores
"""

import json
import os
import platform
import sys
import time

from measure.cost import COST_NS, LOOP_MAX_N, RECORDED_COST
from measure.queue import run_in_child

D_MODEL, N_HEADS = 8, 2  # the sidebar's defaults


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main() -> None:
    args = {"ns": list(COST_NS), "d_model": D_MODEL, "n_heads": N_HEADS, "loop_max_n": LOOP_MAX_N}

    def progress(done, n):
        print(f"{done:4.0%} n = {n}", file=sys.stderr)

    result = run_in_child("cost", args, progress)
    record = {
        "device": cpu_name(),
        "cpu_cores": os.cpu_count(),
        "date": time.strftime("%Y-%m-%d"),
        "d_model": D_MODEL,
        "n_heads": N_HEADS,
        "result": result,
    }
    RECORDED_COST.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
