"""Which browser this is, and what it keeps: cookies that survive reloads, new tabs and restarts.

- a random id, anonymous (no name, nothing of the browser's): a room takes one answer per
  question from it and lets it hold one open room; a shared measurement counts its learners by it;
- a teacher's room and key (ui/room/connection.py), so that a reload or a changed address keeps that
  browser the teacher, with the key never in the address bar or on the page.

The server reads cookies as the browser sends them when its page connects; it writes them with a
script in the page itself (ui/kit/page_script.py; nothing is sent anywhere but this app)."""

import secrets
import time

import streamlit as st

from ui.kit.page_script import page_script

BROWSER_COOKIE = "self_attention_browser"
BROWSER_COOKIE_DAYS = 365
WRITE_S = 10.0  # a cookie's script stays on the page this long (the browser runs it on arrival)


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
    """The cookie ``name`` as the browser sent it when this session's page connected, or ""; a
    value set during this session wins (the browser sends it only on its next connection)."""
    written = st.session_state.get("_cookies_due", {}).get(name)
    if written is not None:
        return written[0]
    try:
        return str(st.context.cookies.get(name) or "")
    except Exception:  # no browser (AppTest)
        return ""


def cookie(name: str) -> str:
    return _cookie(name)


def set_cookie(name: str, value: str, max_age_s: int) -> None:
    """Ask the browser to keep ``name`` (``max_age_s`` 0: to forget it), at the next
    write_cookies(). ``value`` holds only URL-safe characters."""
    st.session_state.setdefault("_cookies_due", {})[name] = (value, int(max_age_s))


def write_cookies(with_browser_id: bool = True) -> None:
    """The cookies this session has to give its browser (its id only if ``with_browser_id``),
    in one script in the page itself, on the runs of the WRITE_S seconds after they were set."""
    browser_id()
    due = dict(st.session_state.get("_cookies_due", {}))
    if with_browser_id and st.session_state.get("_browser_cookie_due"):
        due[BROWSER_COOKIE] = (st.session_state["_browser_id"], BROWSER_COOKIE_DAYS * 86400)
    if not due:
        return
    lines = "".join(
        f'document.cookie = "{name}={value}; Max-Age={age}; Path=/; SameSite=Lax";'
        for name, (value, age) in sorted(due.items())
    )
    # drawn for WRITE_S from the run that first drew these cookies, then left off: a student's
    # every rerun no longer carries it, nor a teacher's page its key in a script
    drawn, now = st.session_state.get("_cookie_script"), time.monotonic()
    if drawn is None or drawn[0] != lines:
        st.session_state["_cookie_script"] = drawn = (lines, now)
    if now - drawn[1] < WRITE_S:
        page_script("cookie_writer", lines)
