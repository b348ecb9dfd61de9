"""AppTest runs every script run as a server's very first visit would (Streamlit's legacy pages/
mode, which AppTest resets on each run). A real server leaves that mode after app.py's first
st.navigation call; the e2e tests cover the first visit. Here every run starts past it."""

import pytest
from streamlit.runtime.pages_manager import PagesManager


@pytest.fixture(autouse=True)
def past_the_first_visit(monkeypatch):
    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init)
