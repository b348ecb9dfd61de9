"""The pages/ workaround (ui/shell/legacy_pages.py) is still needed: Streamlit still has the mode.

Outside tests/app, whose conftest starts every run past the first visit."""

from streamlit.runtime.pages_manager import PagesManager

from tests.support import ROOT
from ui.shell.legacy_pages import past_the_first_visit


def test_streamlit_still_enters_legacy_mode_for_a_pages_folder(monkeypatch):
    # when this fails, Streamlit no longer keys a mode on pages/: delete
    # ui/shell/legacy_pages.py and its three callers (ui/shell/sidebar.py, tests/app/conftest.py,
    # bench/responsiveness.py)
    monkeypatch.setattr(PagesManager, "uses_pages_directory", None)
    PagesManager(str(ROOT / "app.py"))
    assert PagesManager.uses_pages_directory is True


def test_past_the_first_visit_starts_every_run_without_it(monkeypatch):
    monkeypatch.setattr(PagesManager, "uses_pages_directory", None)
    with past_the_first_visit():
        PagesManager(str(ROOT / "app.py"))
        assert PagesManager.uses_pages_directory is False
