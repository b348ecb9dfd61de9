"""Real servers for the tests, on free loopback ports, stopped after."""

import shutil
import socket
import subprocess
import time

import pytest

from bench.server import free_port


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
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        pytest.fail("redis-server did not start")

    def kill(self) -> None:
        """As a crash does: SIGKILL, no shutdown save."""
        self.process.kill()
        self.process.wait(timeout=10)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
