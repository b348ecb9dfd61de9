"""serve.py, as the README starts the app: at start-up it test-writes its room store, and health
fails (503, with the reason) while the store cannot be written."""

import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from bench.server import free_port
from tests.conftest import ROOT


def _health(store: str):
    """(status, body) of /_stcore/health of a serve.py on ROOM_STORE=store, and its output."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "serve.py"),
         f"--server.port={port}", "--server.address=127.0.0.1", "--server.headless=true"],
        cwd=ROOT, env={**os.environ, "ROOM_STORE": store},
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health") as answer:
                    return answer.status, answer.read().decode(), process
            except urllib.error.HTTPError as error:
                return error.code, error.read().decode(), process
            except OSError:
                time.sleep(0.3)
        pytest.fail("serve.py did not answer within 60 s")
    finally:
        process.terminate()
        process.wait(timeout=20)


def test_health_is_ok_on_a_store_that_works(tmp_path):
    status, body, _ = _health(str(tmp_path / "rooms.sqlite3"))
    assert (status, body) == (200, "ok")


def test_health_fails_and_says_why_when_the_store_cannot_be_written(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("where the data folder should be")
    status, body, process = _health(str(blocker / "rooms.sqlite3"))
    assert status == 503 and body == "room store: rooms.sqlite3 cannot be opened"
    output = process.stdout.read()
    assert "the room store does not work: rooms.sqlite3 cannot be opened" in output
