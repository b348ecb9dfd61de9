"""serve.py, as the README starts the app: at start-up it test-writes its room store; /healthz
fails (503, with the reason) while the store cannot be written, and Streamlit's own health, which
the browser asks before it connects, stays up so that the page can say why."""

import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from tests.support import ROOT
from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, require_chromium
from tests.support.servers import free_port


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def _serve(store: str):
    port = free_port()
    process = subprocess.Popen(
        # the README's command, on a free loopback port (not its 8501, which may be taken)
        [sys.executable, "-m", "streamlit", "run", "serve.py",
         f"--server.port={port}", "--server.address=127.0.0.1"],
        cwd=ROOT, env={**os.environ, "ROOM_STORE": store},
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    return port, process


def _health(store: str):
    """(status, body) of /healthz of a serve.py on ROOM_STORE=store, the status of
    /_stcore/health, and the server's output."""
    port, process = _serve(store)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                streamlit_health = _get(f"http://127.0.0.1:{port}/_stcore/health")[0]
            except OSError:
                time.sleep(0.3)
                continue
            return (*_get(f"http://127.0.0.1:{port}/healthz"), streamlit_health, process)
        pytest.fail("serve.py did not answer within 60 s")
    finally:
        process.terminate()
        process.wait(timeout=20)


def test_health_is_ok_on_a_store_that_works(tmp_path):
    status, body, streamlit_health, _ = _health(str(tmp_path / "rooms.sqlite3"))
    assert (status, body, streamlit_health) == (200, "ok", 200)


def test_health_fails_and_says_why_when_the_store_cannot_be_written(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("where the data folder should be")
    status, body, streamlit_health, process = _health(str(blocker / "rooms.sqlite3"))
    assert status == 503 and body == "room store: rooms.sqlite3 cannot be opened"
    assert streamlit_health == 200  # the browser still loads the page, which says why
    output = process.stdout.read()
    assert "the room store does not work: rooms.sqlite3 cannot be opened" in output


def test_the_room_page_loads_and_says_why_in_both_languages(tmp_path):
    from playwright.sync_api import sync_playwright

    require_chromium()
    blocker = tmp_path / "a-file"
    blocker.write_text("where the data folder should be")
    port, process = _serve(str(blocker / "rooms.sqlite3"))
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page()
            for lang, words in (
                ("en", "Rooms cannot work on this server right now"),
                ("zh", "本服务器暂时无法使用课堂：无法打开 rooms.sqlite3"),
            ):
                page.goto(f"http://127.0.0.1:{port}/room?lang={lang}", timeout=60000)
                page.get_by_text(words).first.wait_for(timeout=60000)
                assert page.get_by_test_id("stException").count() == 0
            browser.close()
    finally:
        process.terminate()
        process.wait(timeout=20)


WATCH_NUMPY = """
import os, runpy, sys

class Watch:  # says what OpenBLAS will read, as NumPy is first imported
    def find_spec(self, name, path=None, target=None):
        if name == "numpy" and not hasattr(self, "seen"):
            self.seen = True
            spin = os.environ.get("OPENBLAS_THREAD_TIMEOUT")
            print("OPENBLAS_THREAD_TIMEOUT at NumPy's import:", spin)

sys.meta_path.insert(0, Watch())
runpy.run_path("serve.py", run_name="serve")
import preload  # every page's imports, as serve.py's start makes them
"""


def test_openblas_is_told_how_long_to_spin_before_numpy_loads_it():
    """serve.py sets OPENBLAS_THREAD_TIMEOUT before anything imports NumPy (OpenBLAS reads it
    once, as it loads), unless the environment already says it."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    run = subprocess.run([sys.executable, "-c", WATCH_NUMPY], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert "OPENBLAS_THREAD_TIMEOUT at NumPy's import: 18" in run.stdout, run.stdout + run.stderr
    env["OPENBLAS_THREAD_TIMEOUT"] = "24"
    run = subprocess.run([sys.executable, "-c", WATCH_NUMPY], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert "OPENBLAS_THREAD_TIMEOUT at NumPy's import: 24" in run.stdout, run.stdout + run.stderr
