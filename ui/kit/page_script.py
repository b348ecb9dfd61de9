"""A script that works on the page's own document: the inline HTML of an invisible frame of the
same origin, in a container that style.py folds to nothing (PAGE_SCRIPTS). Nothing is fetched.

``st.iframe`` with the HTML itself, not ``components.html``, which Streamlit deprecated and
which logged a warning to the server's console on every run of every session."""

import streamlit as st

PAGE_SCRIPTS = ("arrow_keys", "fit_charts", "cookie_writer")  # their containers' keys


def page_script(key: str, html: str) -> None:
    """Run ``html`` (a <script>, reaching the page as window.parent.document) in the container
    ``key``, one of PAGE_SCRIPTS; the same HTML on every run is loaded once by the browser."""
    assert key in PAGE_SCRIPTS, key
    with st.container(key=key):
        st.iframe(html, height=1)
