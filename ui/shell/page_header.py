"""Each page's heading and introduction, read from its row of ui/shell/registry.py."""

import streamlit as st

from ui.kit.i18n import t
from ui.kit.session import PAGE_SCRIPT
from ui.shell.registry import by_script


def page_header(compact: bool = False, **params) -> None:
    """The page's title and, where its row has one, its introduction (formatted with
    ``params``). A projector's walkthrough keeps the height for its step: no title there.
    ``compact``: a small title, below the size of the step's own (style.py)."""
    page = by_script(st.session_state.get(PAGE_SCRIPT, "walkthrough"))
    with st.container(key="page_title_small" if compact else None):
        st.title(t(page.title_key))
    if page.intro_key:
        st.markdown(t(page.intro_key, **params))
