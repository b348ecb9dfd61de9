"""What the tests share: real servers, browsers, oracles, traces, the app's AppTest helpers."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repository


def reference_package(name: str):
    """A reference-only package the tests compare against (torch, transformers: in
    requirements-dev.txt, never imported by the app). Missing, it fails the test: a comparison
    that skips for ever checks nothing."""
    import importlib

    import pytest

    try:
        return importlib.import_module(name)
    except ImportError:
        pytest.fail(f"{name} is a test requirement: pip install -r requirements-dev.txt")
