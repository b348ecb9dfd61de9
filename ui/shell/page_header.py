"""Each page's heading and introduction, read from its row of ui/shell/registry.py."""

import streamlit as st

from ui.kit.i18n import t
from ui.kit.session import PAGE_SCRIPT
from ui.shell.registry import by_script


def page_header(compact: bool = False, folded: bool = False, **params) -> None:
    """The page's title and, where its row has one, its introduction (formatted with
    ``params``). A projector's walkthrough keeps the height for its step: no title there.
    ``compact``: a small title, below the size of the step's own (style.py). ``folded`` (a
    projector): a small title and the introduction in a closed expander, so that the page's
    first figure comes within the first screen."""
    page = by_script(st.session_state.get(PAGE_SCRIPT, "walkthrough"))
    with st.container(key="page_title_small" if compact or folded else None):
        st.title(t(page.title_key))
    if page.intro_key and folded:
        with st.expander(t("shell.about_page"), icon=":material/info:"):
            st.markdown(t(page.intro_key, **params))
    elif page.intro_key:
        st.markdown(t(page.intro_key, **params))
