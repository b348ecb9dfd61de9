"""What Streamlit itself costs a rerun, beneath any page of ours: a script of N markdown lines, N
selectboxes or N lines each in its own container, served by ``streamlit run`` with this
repository's settings (.streamlit/config.toml, copied beside it), and the server's CPU per rerun
(all its threads: the script, the event loop, the websocket) while L learners rerun it one after
another. A class of C rerunning at once needs about C times that on one Python process: the floor
under bench/rerun_server_cpu.py's pages.

Run: python bench/streamlit_floor.py [--learners 10] [--reruns 100]
Stops by itself; nothing leaves 127.0.0.1.
"""

import argparse
import asyncio
import shutil
import sys
import tempfile
from contextlib import AsyncExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.classroom import cpu_seconds  # noqa: E402
from tests.support.servers import serving  # noqa: E402
from tests.support.session import connect  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = """
import streamlit as st
n, kind = int(st.query_params.get("n", "1")), st.query_params.get("kind", "markdown")
for i in range(n):
    if kind == "markdown":
        st.markdown(f"line {i}")
    elif kind == "selectbox":
        st.selectbox(f"pick {i}", ["a", "b", "c"], key=f"s{i}")
    else:
        with st.container():
            st.markdown(f"line {i}")
"""
CASES = ("n=1", "n=40", "n=80", "n=160", "n=40&kind=selectbox", "n=40&kind=container")


async def per_rerun(port: int, pid: int, query: str, learners: int, reruns: int) -> tuple:
    base = f"http://127.0.0.1:{port}"
    async with AsyncExitStack() as stack:
        opened = [await connect(base, "", query, None, stack) for _ in range(learners)]
        for learner in opened:
            await learner.run()
        cpu = cpu_seconds(pid)
        for _ in range(max(1, reruns // learners)):
            for learner in opened:
                await learner.run()
        runs = max(1, reruns // learners) * learners
        return 1000 * (cpu_seconds(pid) - cpu) / runs, len(opened[0].texts)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--learners", type=int, default=10)
    parser.add_argument("--reruns", type=int, default=100)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="streamlit-floor-"))
    try:
        (folder / "floor.py").write_text(SCRIPT)
        shutil.copytree(ROOT / ".streamlit", folder / ".streamlit")
        with serving(script="floor.py", root=folder) as (port, server):
            for query in CASES:
                ms, texts = asyncio.run(
                    per_rerun(port, server.pid, query, args.learners, args.reruns)
                )
                print(f"{query:22s} server CPU per rerun {ms:5.1f} ms ({texts} texts)", flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
