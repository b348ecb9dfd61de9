"""A script that runs in the page's own document: ``st.html`` with its JavaScript allowed, in a
container that style.py folds to nothing (PAGE_SCRIPTS). Nothing is fetched.

Not a frame (``components.html``, which Streamlit deprecated and which logged a warning to the
server's console on every run of every session): a frame has to load before its script runs,
and the teacher's cookie came up to seconds after the room was opened, a reload's worth of time
in which the browser would not yet have been the teacher. In the page itself it is written as
the run's elements arrive. Only the app's own constant scripts go through here, never a
learner's text."""

import re

import streamlit as st

PAGE_SCRIPTS = ("arrow_keys", "fit_charts", "cookie_writer", "a11y")  # their containers' keys


def page_script(key: str, script: str) -> None:
    """Run the JavaScript ``script`` (working on ``document``) in the container ``key``, one of
    PAGE_SCRIPTS, in a block of its own: the page's scripts share one global scope, and each
    one's ``const``s stay its own. The same script on every run is not run again."""
    assert key in PAGE_SCRIPTS, key
    # the page's sanitizer (DOMPurify) drops a script whose text looks like markup ("<" and a
    # letter, "/" or "!"), silently: a comment saying "<li>" once cost a page its whole script
    assert not re.search(r"<[\w/!]", script), f"{key}: no '<' before a letter in a page script"
    with st.container(key=key):
        st.html(f"<script>{{\n{script}\n}}</script>", unsafe_allow_javascript=True)
