"""A real server's CPU per rerun, page by page: what decides how many learners one server holds.

N learners (each with a sentence of their own) open a page of ``streamlit run app.py`` on loopback,
then rerun it R times each, one after another; the server process's CPU (all its threads: the
scripts, the event loop sending each message, the websocket) over the reruns, per rerun, and the
median wall time of one. A class of C rerunning at once needs about C times that CPU, on a Python
that runs one thread's bytecode at a time: at 40 ms a rerun, 120 learners wait some 5 s.

With ``--spy FILE`` (py-spy installed apart: ``pip install --target DIR py-spy``, set PY_SPY to its
binary), the server is sampled meanwhile and the functions holding its time are printed.

With ``--against REF``, the same pages on a worktree of the commit REF too, its server and this
checkout's taking turns page by page, ``--rounds`` times (the CPU kind and its neighbours vary:
only figures from one run compare).

Run: python bench/rerun_server_cpu.py [--pages "",room,masks] [--learners 20] [--reruns 5]
     [--against REF [--rounds 2]]
Stops by itself; nothing leaves 127.0.0.1.
"""

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from collections import Counter
from contextlib import AsyncExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.classroom import LINK, cpu_seconds  # noqa: E402
from bench.first_minute import as_installed, checkout, own_sentence  # noqa: E402
from tests.support.servers import serving  # noqa: E402
from tests.support.session import connect  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OWN = LINK.replace("这+部+电影+很+好看", "{}")  # the teacher's link, each learner's own sentence


async def measure(port: int, pid: int, page: str, learners: int, reruns: int, spy: str) -> dict:
    base = f"http://127.0.0.1:{port}"
    async with AsyncExitStack() as stack:
        opened = [
            await connect(base, page, OWN.format(own_sentence(i)), None, stack)
            for i in range(learners)
        ]
        for learner in opened:  # warm: each page's second run
            await learner.run()
        sampler = None
        if spy:
            binary = os.environ.get("PY_SPY", "py-spy")
            sampler = subprocess.Popen(
                [binary, "record", "-p", str(pid), "-r", "200", "-f", "raw", "-o", spy,
                 "--nonblocking"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )  # fmt: skip
            time.sleep(1.0)
        cpu = cpu_seconds(pid)
        walls = [await learner.run() for _ in range(reruns) for learner in opened]
        cpu = cpu_seconds(pid) - cpu
        if sampler:
            sampler.send_signal(2)
            sampler.wait(30)
        return {
            "cpu_ms": 1000 * cpu / len(walls),
            "wall_ms": 1000 * statistics.median(walls),
            "texts": len(opened[0].texts),
        }


def hottest(raw: str, shown: int = 25) -> list[str]:
    """py-spy's raw stacks: each function's share of the samples, with what it called."""
    total, inclusive = 0, Counter()
    for line in Path(raw).read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack:
            continue
        total += int(count)
        for frame in dict.fromkeys(frame[:100] for frame in stack.split(";")):
            inclusive[frame] += int(count)
    return [f"    {n / total:6.1%}  {frame}" for frame, n in inclusive.most_common(shown)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", default=",room", help="URL names, comma-separated ('' = /)")
    parser.add_argument("--learners", type=int, default=20)
    parser.add_argument("--reruns", type=int, default=5)
    parser.add_argument("--spy", default="", help="py-spy's raw output here")
    parser.add_argument("--against", default="", help="a commit to measure side by side")
    parser.add_argument("--rounds", type=int, default=1, help="with --against: turns each")
    args = parser.parse_args()
    if not args.against:
        for page in args.pages.split(","):
            one_page(ROOT, "", page, args)
        return
    with checkout(args.against) as before:
        for turn in range(args.rounds):
            for page in args.pages.split(","):
                with as_installed(before):
                    one_page(before, f"before/{turn + 1} ", page, args)
                one_page(ROOT, f"now/{turn + 1}    ", page, args)


def one_page(root: Path, label: str, page: str, args) -> None:
    with serving(root=root) as (port, server):
        spy = args.spy and f"{args.spy}.{label.strip().replace('/', '')}{page or 'walkthrough'}"
        got = asyncio.run(measure(port, server.pid, page, args.learners, args.reruns, spy))
    print(
        f"{label}/{page:<20} server CPU per rerun {got['cpu_ms']:5.1f} ms | one rerun's wall time"
        f" (median) {got['wall_ms']:5.1f} ms | {got['texts']} texts a run",
        flush=True,
    )
    if spy and Path(spy).exists():
        print("\n".join(hottest(spy)))


if __name__ == "__main__":
    main()
