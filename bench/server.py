"""Start the app on a free loopback port for a benchmark, and stop it afterwards."""

import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serving(*options: str):
    """Yield (port, process) of `streamlit run app.py` on 127.0.0.1, once it answers /health."""
    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(ROOT / "app.py"),
            f"--server.port={port}",
            "--server.address=127.0.0.1",
            "--server.headless=true",
            *options,
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        yield port, server
    finally:
        server.terminate()
        server.wait(timeout=20)
