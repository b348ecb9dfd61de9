"""What the tests share: real servers, browsers, oracles, traces, the app's AppTest helpers."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repository
