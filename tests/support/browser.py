"""Debian's Chromium, as every browser test launches it (Playwright's own download does not work
here), with the flags that keep it off the network."""

import shutil
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def require_chromium() -> None:
    if not Path(CHROMIUM).exists():
        pytest.fail(
            "Debian's chromium is needed: apt-get install -y chromium fonts-noto-cjk"
            " (bash .ci/debian-packages.sh installs everything the tests need)"
        )


def wait_for_sentence(page, sentence: str, lang: str, timeout: int = 20000) -> None:
    """Wait until ``page`` shows ``sentence`` (a following student's page has no sentence box):
    its token count in the step's caption (which a phone folds away: the page's text, not what
    is drawn), and its last word on a chart."""
    count = len(sentence.split())
    count = f"{count} 个 token" if lang == "zh" else f"{count} tokens"
    page.wait_for_function(
        """([count, word]) => document.body.textContent.includes(count) &&
            [...document.querySelectorAll('.js-plotly-plot')].some(
                (chart) => chart.textContent.includes(word))""",
        arg=[count, sentence.split()[-1]],
        timeout=timeout,
    )
