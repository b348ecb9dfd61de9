"""A class arrives at once: a freshly started serve.py, one websocket session on every page of
the registry at the same moment, and no first run may show an error.

Plotly imports pandas lazily, and the first figures of several sessions' script threads made at
once saw a half-imported pandas ("partially initialized module 'pandas' has no attribute
'Series'"); the flash page failed 2 times of 2 that way (issue 44). A race can hide, so the test
starts several fresh processes and opens every page on each."""

import asyncio
import json
import subprocess
import sys
from contextlib import AsyncExitStack

import pytest

from tests.support import ROOT
from tests.support.servers import serving
from tests.support.session import connect
from ui.kit.i18n import LANGS, t
from ui.shell.registry import PAGES

COLD_STARTS = 3
PER_PAGE = 3  # 45 learners over the 15 pages, as the class of 44 spread over them
FIRST_RUN_S = 300  # 45 first runs on 2 cores, /generate loading its 1.1 GB model among them


async def _everyone_at_once(port: int) -> dict[str, list[str]]:
    """Each page's errors on its first runs (an exception element, or the app's apology with its
    traceback), PER_PAGE sessions on every page opened in the same moment, in both languages."""
    apology = {t("shell.unexpected_error", lang) for lang in LANGS}
    base = f"http://127.0.0.1:{port}"
    async with AsyncExitStack() as stack:

        async def first_run(i: int, url: str) -> list[str]:
            lang = "zh" if i % 2 else "en"
            learner = await connect(base, url, f"lang={lang}", None, stack)
            shown = [text for text in learner.texts if text in apology or "Traceback" in text]
            return [what.strip().splitlines()[-1] for what in learner.exceptions + shown]

        spread = [page for _ in range(PER_PAGE) for page in PAGES]
        found = await asyncio.wait_for(
            asyncio.gather(*(first_run(i, page.url) for i, page in enumerate(spread))),
            timeout=FIRST_RUN_S,
        )
    errors: dict[str, list[str]] = {}
    for page, what in zip(spread, found, strict=True):
        if what:
            errors.setdefault(page.script, []).extend(what)
    return errors


@pytest.mark.parametrize("script", ["serve.py", "app.py"])
def test_every_page_opened_at_once_on_a_fresh_server_shows_no_error(script):
    """On both entry points: app.py has no start-up hook, so nothing runs before the first
    sessions but what Streamlit itself runs (issue 54: with the pages in a folder named pages/,
    Streamlit's legacy multipage mode ran page scripts before app.py's imports, 30-50 first runs
    in 60 failed)."""
    failures = []
    for start in range(COLD_STARTS):
        with serving(script=script) as (port, _server):
            errors = asyncio.run(_everyone_at_once(port))
        failures += [f"start {start + 1}, /{script}: {what}" for script, what in errors.items()]
    assert not failures, "\n\n".join(failures)


# Run in a fresh process: the server's start (serve.py's preload), then every page's first run in
# both languages; it prints the modules those runs imported for the first time.
PROBE = """
import json, sys
import serve, preload
from streamlit.testing.v1 import AppTest
from tests.support.app import run_app
from ui.shell.registry import PAGES
before = set(sys.modules)
for lang in ("en", "zh"):
    for page in PAGES:
        run_app(page.script, lang=lang)
print(json.dumps(sorted(set(sys.modules) - before)))
"""


def test_no_page_imports_a_module_for_the_first_time_in_a_session():
    """What preload.py imports is traced, not guessed: any module a page's first run still
    imports for the first time (in its session's thread) is named here."""
    run = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stderr[-3000:]
    imported = json.loads(run.stdout.strip().splitlines()[-1])
    assert imported == [], f"imported lazily by a page's first run: {imported}"
