"""A classroom of 60: sessions opened at once over Streamlit's websocket, loopback only.

Measures each session's first render (connect to "script finished"), then every session rerunning
at the same moment, and the server's memory. All sessions use the teacher's link (the same
settings), so the shared cache should compute each trace once.
Targets: first renders within 10 s, simultaneous reruns p95 under 2 s, server memory under 300 MB.
Run: python bench/classroom.py [sessions]      (stops by itself; nothing leaves 127.0.0.1)
"""

import asyncio
import os
import sys
import time
from pathlib import Path

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.server import serving  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
LINK = "lang=zh&sentence=这+部+电影+很+好看&mask=causal&step=softmax"


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def run_until_finished(ws) -> float:
    message = BackMsg()
    message.rerun_script.query_string = LINK
    start = time.perf_counter()
    await ws.send(message.SerializeToString())
    while True:
        reply = ForwardMsg()
        reply.ParseFromString(await asyncio.wait_for(ws.recv(), timeout=60))
        if reply.WhichOneof("type") == "script_finished":
            return time.perf_counter() - start


async def session(url: str, results: dict, go_again: asyncio.Event):
    start = time.perf_counter()
    async with websockets.connect(url, subprotocols=["streamlit"], max_size=None) as ws:
        await run_until_finished(ws)
        results["first"].append(time.perf_counter() - start)
        await go_again.wait()
        results["rerun"].append(await run_until_finished(ws))


async def classroom(port: int, sessions: int, pid: int) -> dict:
    url = f"ws://127.0.0.1:{port}/_stcore/stream"
    results = {"first": [], "rerun": []}
    go_again = asyncio.Event()
    tasks = [asyncio.create_task(session(url, results, go_again)) for _ in range(sessions)]
    while len(results["first"]) < sessions:
        await asyncio.sleep(0.05)
        if any(task.done() and task.exception() for task in tasks):
            raise next(task.exception() for task in tasks if task.done() and task.exception())
    results["rss_after_first"] = rss_mb(pid)
    server_cpu, client_cpu = cpu_seconds(pid), time.process_time()
    go_again.set()  # every student changes nothing and reruns at the same moment
    await asyncio.gather(*tasks)
    results["server_cpu"] = cpu_seconds(pid) - server_cpu
    results["client_cpu"] = time.process_time() - client_cpu
    results["rss_after_rerun"] = rss_mb(pid)
    return results


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main():
    sessions = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    with serving("--server.enableXsrfProtection=false", "--server.fileWatcherType=none") as (
        port,
        server,
    ):
        idle = rss_mb(server.pid)
        results = asyncio.run(asyncio.wait_for(classroom(port, sessions, server.pid), 300))
    first, rerun = results["first"], results["rerun"]
    print(f"{sessions} sessions on one server (loopback), the teacher's link: {LINK}")
    print(
        f"first render: max {max(first):.2f} s, p95 {percentile(first, 0.95):.2f} s"
        f" -> within 10 s {'met' if max(first) <= 10 else 'MISSED'}"
    )
    print(
        f"simultaneous reruns: p95 {percentile(rerun, 0.95):.2f} s, max {max(rerun):.2f} s"
        f" -> p95 under 2 s {'met' if percentile(rerun, 0.95) < 2 else 'MISSED'}"
    )
    print(
        f"CPU time during the reruns: server {results['server_cpu']:.2f} s"
        f" ({results['server_cpu'] / sessions * 1e3:.0f} ms a rerun), this client"
        f" {results['client_cpu']:.2f} s, on {os.cpu_count()} cores"
    )
    peak = max(results["rss_after_first"], results["rss_after_rerun"])
    print(
        f"server memory (RSS): idle {idle:.0f} MB, after first renders"
        f" {results['rss_after_first']:.0f} MB, after reruns {results['rss_after_rerun']:.0f} MB"
        f" -> under 300 MB {'met' if peak < 300 else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
