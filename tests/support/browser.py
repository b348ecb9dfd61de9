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
