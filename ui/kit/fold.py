"""A fold whose content is drawn only while it is open (issue 67: no work for what is off
screen). Streamlit draws a closed expander's content all the same, and sends it: under a
walkthrough step the "write it yourself" exercise was 12 of a rerun's 96 messages and 2 ms of
its script, for a fold most learners leave closed. Opened, the page reruns once and draws it;
the session state keeps it open (``key``) until the learner closes it.

    box = fold(t("practice.folded"), "practice_fold", icon=":material/edit_note:")
    if box:
        with box:
            ...
"""

import streamlit as st


def fold(label: str, key: str, *, icon: str | None = None):
    """The expander, closed at first; the container to draw into while it is open, else None."""
    box = st.expander(label, key=key, icon=icon, on_change="rerun")
    return box if box.open else None
