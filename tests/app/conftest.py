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


@pytest.fixture
def gpu_app(gpu_stand_in):
    """The stand-in GPU for a whole app run, with the process-wide trace cache emptied before and
    after, so no result computed under it outlives the test."""
    from ui.compute import sentence_trace

    sentence_trace.cache_clear()
    yield gpu_stand_in
    sentence_trace.cache_clear()
