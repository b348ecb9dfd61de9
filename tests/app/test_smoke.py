"""The app starts without an exception."""

from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT


def test_app_starts():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30).run()
    assert not at.exception
    assert "Self-Attention" in at.title[0].value
