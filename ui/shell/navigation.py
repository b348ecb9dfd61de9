"""The navigation's pages (st.Page), in a language: made once per process and language, and
copied for each session.

Making an st.Page resolves its script's path on disk (Path.resolve: a realpath walk, a system
call per folder), 17 pages for each session: in a class of 60 arriving at once that was 11% of
the server's busy time in the first seconds (py-spy, issue 54). A copy made from one already
made resolves nothing. Each session gets its own copies, because st.navigation marks the page it
returns as the one allowed to run (``_can_be_called``), and another session's run must not
clear that mark.
"""

import copy
import threading
from pathlib import Path

import streamlit as st

from ui.kit.i18n import t
from ui.shell.registry import PAGES, script_path

APP = Path(__file__).resolve().parents[2]  # where app.py is
_made: dict[str, dict] = {}  # language -> {section: [st.Page]}, the originals
_lock = threading.Lock()


def _make(lang: str) -> dict:
    sections = {}
    for page in PAGES:
        sections.setdefault(t(page.section, lang), []).append(
            st.Page(
                APP / script_path(page.script),
                title=t(page.nav_key, lang),
                icon=page.icon,
                url_path=page.url or None,
                default=not page.url,
            )
        )
    return sections


def session_pages(lang: str) -> dict:
    """The sections and their pages in ``lang``, this session's own copies (made once per session
    and language: every rerun reuses them)."""
    mine = st.session_state.setdefault("_pages", {})
    if lang not in mine:
        with _lock:
            if lang not in _made:
                _made[lang] = _make(lang)
        mine[lang] = {
            section: [copy.copy(page) for page in pages] for section, pages in _made[lang].items()
        }
    return mine[lang]
