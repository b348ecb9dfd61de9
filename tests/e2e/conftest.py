"""Start the app on a free loopback port and drive it with Debian's Chromium through Playwright."""

import os
import subprocess
import time
import urllib.request
from urllib.parse import urlparse

import pytest

from tests.support import ROOT
from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, require_chromium
from tests.support.servers import free_port, readme_serve

SHOTS = ROOT / "artifacts" / "screenshots"
LOCAL_HOSTS = {"127.0.0.1", "localhost"}


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/e2e" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="package")
def app_url(tmp_path_factory):
    port = free_port()
    rooms = tmp_path_factory.mktemp("rooms") / "rooms.sqlite3"  # this run's own room store
    (ROOT / "artifacts").mkdir(exist_ok=True)
    log = open(ROOT / "artifacts" / "e2e-server.log", "w")
    process = subprocess.Popen(
        readme_serve(port),
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1", "ROOM_STORE": str(rooms)},
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).status == 200:
                break
        except OSError:
            time.sleep(0.3)
    else:
        process.terminate()
        pytest.fail("the app did not start within 60 s; see artifacts/e2e-server.log")
    yield url
    process.terminate()
    process.wait(timeout=10)
    log.close()


@pytest.fixture(scope="package")
def browser():
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class Session:
    """One browser page on the app, recording every request that leaves the machine."""

    def __init__(self, browser, app_url, locale="en-US", width=1400, height=1000):
        self.base = app_url
        self.context = browser.new_context(
            locale=locale, viewport={"width": width, "height": height}
        )
        self.outside = []
        self.context.route("**/*", self._guard)
        self.page = self.context.new_page()

    def _guard(self, route):
        host = urlparse(route.request.url).hostname
        if route.request.url.startswith(("data:", "blob:")) or host in LOCAL_HOSTS:
            route.continue_()
        else:
            self.outside.append(route.request.url)
            route.abort()

    def open(self, path: str):
        self.page.goto(self.base + path)
        self.wait_idle()
        return self

    def wait_idle(self, timeout=30000):
        self.page.wait_for_selector(
            '[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=timeout
        )
        self.page.wait_for_timeout(300)

    def wait_charts(self, count=1, timeout=15000):
        self.page.wait_for_function(
            f"document.querySelectorAll('[data-testid=stPlotlyChart] .main-svg').length >= {count}",
            timeout=timeout,
        )

    def chart_data(self, index: int = 0) -> list[dict]:
        """The traces of the index-th Plotly chart as the browser holds them (arrays decoded)."""
        chart = self.page.get_by_test_id("stPlotlyChart").nth(index).locator(".js-plotly-plot")
        return chart.evaluate("el => el.data.map(d => ({type: d.type, text: d.text ?? null}))")

    def assert_healthy(self):
        assert self.page.get_by_test_id("stException").count() == 0, "a traceback is on screen"
        assert self.page.locator("[role=dialog]").count() == 0, "an unexpected dialog is open"
        assert not self.outside, f"requests left the machine: {self.outside}"

    def shot(self, name: str):
        """Screenshot of the whole page: the viewport grows to the main area's scroll height."""
        SHOTS.mkdir(parents=True, exist_ok=True)
        size = self.page.viewport_size
        tall = self.page.evaluate(
            "Math.max(...[...document.querySelectorAll('[data-testid=stMain], section')]"
            ".map(e => e.scrollHeight), 0)"
        )
        self.page.set_viewport_size(
            {"width": size["width"], "height": min(max(tall, size["height"]), 5000)}
        )
        self.page.wait_for_timeout(400)
        self.page.screenshot(path=str(SHOTS / f"{name}.png"))
        self.page.set_viewport_size(size)

    def close(self):
        self.context.close()


@pytest.fixture
def session(browser, app_url):
    sessions = []

    def make(**kwargs):
        sessions.append(Session(browser, app_url, **kwargs))
        return sessions[-1]

    yield make
    for s in sessions:
        s.close()
