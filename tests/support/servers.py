"""Real servers on free loopback ports, stopped after: the app (for the e2e tests, the deploy
tests and the benchmarks), deploy/local.sh's whole setup, and a redis-server of the tests' own."""

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serving(*options: str, script: str = "app.py", log: Path | None = None, root: Path = ROOT):
    """Yield (port, process) of `streamlit run app.py` (or ``script``: serve.py, the README's, with
    its /healthz and its rooms' pulse) on 127.0.0.1, once it answers /health; its console goes to
    the file ``log`` if given. ``root``: the checkout to run (a bench's other version of the app);
    it yields the moment /_stcore/health first answers, when a class's browsers can connect."""
    port = free_port()
    console = open(log, "wb") if log else subprocess.DEVNULL  # noqa: SIM115 (closed below)
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            script,  # as the README's command: from the repository, its config.toml read there
            f"--server.port={port}",  # a free port, not the README's 8501, which may be taken
            "--server.address=127.0.0.1",  # loopback only
            *options,
        ],
        cwd=root,
        stdout=console,
        stderr=subprocess.STDOUT if log else subprocess.DEVNULL,
    )
    try:
        for _ in range(1200):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1)
                break
            except OSError:
                time.sleep(0.05)
        yield port, server
    finally:
        server.terminate()
        server.wait(timeout=20)
        if log:
            console.close()


@contextmanager
def deployed(replicas: int, env: dict | None = None, root: Path = ROOT):
    """Yield (base URL, {replica address: pid}, redis port) of ``deploy/local.sh replicas``:
    redis-server, the app replicas and nginx in front, on free loopback ports; all stopped after
    (SIGTERM to the script, which stops what it started)."""
    for tool in ("redis-server", "nginx"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is not installed (apt-get install -y redis-server nginx)")
    port = free_port()
    process = subprocess.Popen(
        ["bash", str(root / "deploy" / "local.sh"), str(replicas), str(port)],
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    started, deadline, redis_port = {}, time.monotonic() + 120, None
    try:
        for line in process.stdout:
            if match := re.match(r"redis-server on 127.0.0.1:(\d+), AOF in ", line):
                redis_port = int(match.group(1))
            if match := re.match(r"replica \d+: pid (\d+) on (\S+)", line):
                started[match.group(2)] = int(match.group(1))
            if line.startswith("ready:") or time.monotonic() > deadline:
                break
        assert len(started) == replicas, f"deploy/local.sh did not start {replicas} replicas"
        yield f"http://127.0.0.1:{port}", started, redis_port
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


def route_cookies(base: str, replicas) -> dict:
    """A route cookie that nginx (deploy/local.sh) sends to each replica, found by asking."""
    found = {}
    for i in range(200):
        request = urllib.request.Request(
            f"{base}/_stcore/health", headers={"Cookie": f"route=c{i}"}
        )
        with urllib.request.urlopen(request, timeout=5) as response:
            found.setdefault(response.headers["X-Replica"], f"c{i}")
        if set(found) == set(replicas):
            return found
    raise AssertionError(f"no cookie reached every replica: {found}")


class RedisServer:
    """A redis-server of this test session's own, which a test may kill and start again: with
    AOF (appendfsync always here, so a test needs no wait), what it held comes back."""

    def __init__(self, folder, fsync: str = "always"):
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.fail(
                "redis-server is not installed: apt-get install -y redis-server"
                " (bash .ci/debian-packages.sh installs everything the tests need)"
            )
        self.binary, self.folder, self.port, self.fsync = binary, folder, free_port(), fsync
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process = None
        self.start()

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "yes", "--appendfsync", self.fsync, "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        for _ in range(200):  # until it answers: while it loads its AOF it says LOADING
            if self._answers():
                return
            time.sleep(0.05)
        pytest.fail("redis-server did not start")

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as connection:
                connection.sendall(b"PING\r\n")
                return connection.recv(64).startswith(b"+PONG")
        except OSError:
            return False

    def kill(self) -> None:
        """As a crash does: SIGKILL, no shutdown save."""
        self.process.kill()
        self.process.wait(timeout=10)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def readme_serve(port: int) -> list[str]:
    """The README's first command's server, as a test or bench starts it (run it from the
    repository: .streamlit/config.toml is read from there)."""
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "serve.py",  # the app with its store check, as the README starts it
        f"--server.port={port}",  # a free port, not the README's 8501, which may be taken
        "--server.address=127.0.0.1",  # loopback only
    ]
