"""What one session costs the server (serve.py), page by page: the CPU behind the class benches.

1. each page's first render on a fresh server (cold: its figures built, its modules imported, the
   models loaded), then a fresh session's on a page already drawn (warm), then its reruns;
2. a student following a teacher: the CPU of a rerun, and the messages it sends, by kind.

bench/classroom.py measures 60 sessions at once; since the server runs their scripts on one core
(the GIL), its figures are roughly these costs added up. Loopback only; stops by itself.

Run: python bench/rerun_cost.py [--reruns N]
"""

import argparse
import asyncio
import collections
import sys
import time
from contextlib import AsyncExitStack
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

from bench.classroom import PAGES, cpu_seconds  # noqa: E402
from tests.support.servers import serving  # noqa: E402
from tests.support.session import EARLY_FOR_RERUN, connect, open_room  # noqa: E402


async def cpu_ms(pid: int, work, times: int = 1) -> float:
    """Server CPU, in ms, of ``work()`` awaited ``times`` times, per time."""
    start = cpu_seconds(pid)
    for _ in range(times):
        await work()
    return (cpu_seconds(pid) - start) * 1000 / times


async def every_page(base: str, pid: int, reruns: int) -> None:
    print(f"{'page':22s} {'cold':>8s} {'warm':>8s} {'rerun':>8s}   (server CPU, ms)")
    async with AsyncExitStack() as stack:
        for page in PAGES:
            opening = partial(connect, base, page, "lang=en", None, stack)  # a fresh session
            cold = await cpu_ms(pid, opening)
            warm = await cpu_ms(pid, opening, 3)
            learner = await connect(base, page, "lang=en", None, stack)
            rerun = await cpu_ms(pid, learner.run, reruns)
            print(f"{page or 'walkthrough':22s} {cold:8.0f} {warm:8.0f} {rerun:8.1f}", flush=True)


async def messages(learner) -> collections.Counter:
    """The messages one rerun of ``learner``'s page sends, by kind."""
    message = BackMsg()
    message.rerun_script.query_string = learner.query
    message.rerun_script.page_name = learner.page
    await learner.ws.send(message.SerializeToString())
    kinds = collections.Counter()
    while True:
        reply = ForwardMsg()
        reply.ParseFromString(await learner.ws.recv())
        kind = reply.WhichOneof("type")
        if kind == "script_finished" and reply.script_finished != EARLY_FOR_RERUN:
            return kinds
        if kind == "delta" and reply.delta.WhichOneof("type") == "new_element":
            kind = reply.delta.new_element.WhichOneof("type")
        elif kind == "delta":
            kind = reply.delta.WhichOneof("type")
        kinds[kind] += 1


async def follower(base: str, pid: int, reruns: int) -> None:
    async with AsyncExitStack() as stack:
        _, code, key = await open_room(base, "en", None, stack)
        query = f"room={code}&key={key}&lang=en&step=softmax"
        teacher = await connect(base, "", query, None, stack)
        await teacher.run(teacher.type_into("sentence", "w0 w1 w2 w3 w4 w5"))
        student = await connect(base, "", f"room={code}&lang=zh", None, stack)
        for _ in range(3):
            await student.run()
        rounds = sorted([await cpu_ms(pid, student.run, reruns) for _ in range(5)])
        kinds = await messages(student)
    spread = f"{rounds[0]:.1f}-{rounds[-1]:.1f}"
    print(f"\na following student's rerun: {rounds[2]:.1f} ms of server CPU (median of 5 x"
          f" {reruns}: {spread}), {sum(kinds.values())} messages:")  # fmt: skip
    print(", ".join(f"{kind} {n}" for kind, n in kinds.most_common()))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reruns", type=int, default=15)
    reruns = parser.parse_args().reruns
    with serving(script="serve.py") as (port, server):
        base = f"http://127.0.0.1:{port}"
        started = time.perf_counter()
        asyncio.run(every_page(base, server.pid, reruns))
        asyncio.run(follower(base, server.pid, reruns))
        print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
