"""Which browser this is: a random id in a cookie, anonymous (no name, nothing of the browser's),
that survives reloads, new tabs and restarts. A room takes one answer per question from it, and
lets it hold one open room; a shared measurement counts its learners by it."""

import secrets

import streamlit as st
import streamlit.components.v1 as components

BROWSER_COOKIE = "self_attention_browser"
BROWSER_COOKIE_DAYS = 365


def browser_id() -> str:
    """A random id for this browser, kept in a cookie so that it survives reloads, new tabs and
    restarts (anonymous: no name, nothing of the browser's): one answer per question and one
    open room per browser. A session whose browser sent no valid cookie makes one."""
    state = st.session_state
    if "_browser_id" not in state:
        sent = _cookie(BROWSER_COOKIE)
        valid = len(sent) == 32 and all(c in "0123456789abcdef" for c in sent)
        state["_browser_id"] = sent if valid else secrets.token_hex(16)
        state["_browser_cookie_due"] = not valid
    return state["_browser_id"]


def _cookie(name: str) -> str:
    try:
        return str(st.context.cookies.get(name) or "")
    except Exception:  # no browser (AppTest)
        return ""


def keep_browser_id() -> None:
    """Give the browser its id's cookie (a script in this page's own component; nothing sent
    anywhere but this app)."""
    browser_id()
    if st.session_state.get("_browser_cookie_due"):
        days = BROWSER_COOKIE_DAYS * 86400
        components.html(
            "<script>window.parent.document.cookie = "
            f'"{BROWSER_COOKIE}={st.session_state["_browser_id"]}; Max-Age={days}; Path=/; '
            'SameSite=Lax";</script>',
            height=0,
        )
