"""The one Streamlit workaround: a folder named pages/ beside app.py.

Streamlit's PagesManager sets the class attribute ``uses_pages_directory`` to True the first time
it is built for an app with a pages/ folder (streamlit/runtime/pages_manager.py, "a relic of v1 of
Multipage apps"). In that mode a server's very first session runs the page script alone, without
app.py, until ``st.navigation`` has run once. The product keeps the folder's name, so:

- ``leave_legacy_mode()`` switches the mode off (a page that finds itself run without app.py calls
  it, then reruns);
- ``past_the_first_visit()`` makes every new PagesManager start with the mode off, as a running
  server is after its first session (AppTest builds a new one for every run; the tests and the
  responsiveness bench use it).

tests/ui/test_legacy_pages.py fails once Streamlit no longer has this mode: then this goes.
"""

from contextlib import contextmanager

from streamlit.runtime.pages_manager import PagesManager


def leave_legacy_mode() -> None:
    PagesManager.uses_pages_directory = False


@contextmanager
def past_the_first_visit():
    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        leave_legacy_mode()

    PagesManager.__init__ = init
    try:
        yield
    finally:
        PagesManager.__init__ = original
