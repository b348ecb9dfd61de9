"""A shared link reproduces the view: choices kept in the URL by their short codes, and the note
for a link whose settings are out of range (each setting's rule is its row in ui/kit/settings.py).
"""

import streamlit as st

from ui.kit.settings import SETTINGS


def coded_choice(key: str, codes, default: str) -> str:
    """The URL's short code for this choice (?mask=causal) when it is valid, else ``default``.

    Streamlit's own binding writes a choice widget's display label into the URL; these choices
    keep short, language-independent codes there instead (see ``keep_in_url``).
    """
    code = st.query_params.get(key)
    return code if code in codes else default


def keep_in_url(key: str, value: str, default: str) -> None:
    """Write a coded choice to the URL, leaving it out when it is the default."""
    if value == default:
        if key in st.query_params:
            del st.query_params[key]
    elif st.query_params.get(key) != value:
        st.query_params[key] = value


def url_choice(widget, label: str, codes, key: str, default: str, **kwargs) -> str:
    """A choice widget (selectbox, radio, segmented control) whose URL keeps its short code."""
    start = coded_choice(key, codes, default)
    if widget is st.segmented_control:
        kwargs.update(default=start, required=True)
    else:
        kwargs.update(index=list(codes).index(start))
    value = widget(label, codes, key=key, **kwargs) or default
    keep_in_url(key, value, default)
    return value


def check_url() -> list[str]:
    """Settings in this session's first URL that are out of range or nonsense (noted once)."""
    if "_url_notes" not in st.session_state:
        params = st.query_params
        st.session_state["_url_notes"] = [
            f"{s.in_url}={params[s.in_url]}"
            for s in SETTINGS
            if s.widget != "page" and s.in_url in params and not s.valid(params[s.in_url])
        ]
    return st.session_state["_url_notes"]
