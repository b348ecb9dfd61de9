"""This session's link to a room (classroom/rooms.py): the shared ``rooms()``, ``enter()`` and
``leave()``, who is the teacher, and the view a teacher publishes and a student applies. The
band's two sides are ui/room/teacher.py and ui/room/student.py; app.py's hooks, ui/room/hooks.py.
A student's fragment looks at the room every second, counts them as connected, follows the view
unless they chose to explore, and shows the current question; a teacher's second tab follows the
room the same way.

Every call into the store goes through ``guarded``: a store that fails (Redis restarting, a full
disk) shows "reconnecting…" in place of the room's band, never an error box, and a fragment
polls until the store answers again, then the page carries on by itself.
"""

import functools
import logging
import threading

import streamlit as st

import classroom.clock
from classroom.pulse import POLL_S  # a page looks at its room this often
from classroom.rooms import (
    CODE_LENGTH,
    ROOM_TTL,
    RoomError,
    Rooms,
    join_wait,
    normal_code,
)
from classroom.store import StoreError, shared_problem, shared_store
from ui.kit.browser import cookie, set_cookie
from ui.kit.escape import markdown_text
from ui.kit.i18n import t
from ui.kit.session import (
    LANDED,
    LANDING,
    LEFT_ROOM,
    PAGE_SCRIPT,
    ROOM_FOCUS,
    ROOM_PAGE,
    SECTION,
)
from ui.kit.settings import FOLLOWED

TEACHER_COOKIE = "self_attention_teacher"  # "CODE:KEY" of the room this browser teaches
VIEW_FIELDS = ("page", *(s.state_key for s in FOLLOWED))  # a room's view: the settings it follows
_rooms, _lock = None, threading.Lock()
_LOG = logging.getLogger(__name__)


def rooms() -> Rooms:
    """The server's rooms, on the store $ROOM_STORE names (SQLite in data/ by default)."""
    global _rooms
    with _lock:
        if _rooms is None:
            _rooms = Rooms(shared_store())
        return _rooms


def store_problem() -> str | None:
    """Why the store fails its test write (checked at start-up and every few seconds), in the
    learner's language, or None."""
    problem = shared_problem()
    return store_reason(problem) if problem else None


def store_reason(error: StoreError) -> str:
    return t(f"room.store_{error.code}", **error.params)


def _debug() -> bool:
    return st.get_option("global.developmentMode") or st.get_option("logger.level") == "debug"


def store_down(error: StoreError) -> None:
    """The one face of a failing store: a notice, and (outside a fragment) a fragment that
    reruns the page once the store answers again."""
    _LOG.warning("room store: %s", error.reason)
    st.session_state["_room_store_down"] = True
    st.warning(t("room.reconnecting"), icon=":material/sync:")
    if _debug():
        st.caption(t("room.reconnecting_why", reason=markdown_text(store_reason(error))))


def guarded(function):
    """Run ``function``; a StoreError becomes the reconnecting notice (see store_down)."""

    @functools.wraps(function)
    def run(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except StoreError as error:
            store_down(error)
            if not st.session_state.get("_in_fragment"):
                _wait_for_store()

    return run


@st.fragment(run_every=POLL_S)
def _wait_for_store() -> None:
    try:
        rooms().store.get("probe:alive")
    except StoreError:
        return
    st.session_state["_room_store_down"] = False
    st.rerun()


def fragment_guarded(function=None, *, notice: bool = True):
    """``guarded`` for a fragment's body; once the store is back after an outage, one full
    rerun redraws the page (and a teacher's view unpublished meanwhile goes out). With
    ``notice=False`` the fragment shows nothing while the store is down (another one says it)."""
    if function is None:
        return functools.partial(fragment_guarded, notice=notice)

    @functools.wraps(function)
    def run(*args, **kwargs):
        st.session_state["_in_fragment"] = True
        try:
            result = function(*args, **kwargs)
        except StoreError as error:
            if notice:
                store_down(error)
            else:
                st.session_state["_room_store_down"] = True
            return None
        except RoomError:  # the room expired or was closed meanwhile: the full run says so
            st.rerun()
        finally:
            st.session_state["_in_fragment"] = False
        if st.session_state.get("_room_store_down"):
            st.session_state["_room_store_down"] = False
            st.rerun()
        return result

    return run


def shown_code(text: str) -> str:
    """A code typed or sent in the URL, safe to echo into markdown: cut to a code's length
    (and a little), every markdown character escaped."""
    text = normal_code(text)
    return markdown_text(text[: CODE_LENGTH + 3] + ("…" if len(text) > CODE_LENGTH + 3 else ""))


def join_allowed() -> bool:
    """False (with a message) while this session waits after too many failed joins."""
    wait = st.session_state.get("_join_next_at", 0.0) - classroom.clock.now()
    if wait > 0:
        st.warning(t("room.join_wait", s=int(wait) + 1))
        return False
    return True


def join_failed(success: bool) -> None:
    failures = 0 if success else st.session_state.get("_join_failures", 0) + 1
    st.session_state["_join_failures"] = failures
    st.session_state["_join_next_at"] = classroom.clock.now() + join_wait(failures)


def enter(code: str, key: str | None = None) -> None:
    """This session joins room ``code``, following its view; with the room's ``key``, as its
    teacher. A teacher's browser keeps the room and its key in a cookie, so that a reload, a
    new tab or an address typed by hand (``?big=true``) keeps it the teacher. The address keeps
    ``room=CODE``, never the key."""
    state = st.session_state
    if state.get("room") != code:
        state.update(room=code, room_version=-1, room_follow=True)
        state.pop("room_key", None)
    if key is not None:
        state["room_key"] = key
        state.pop(LEFT_ROOM, None)
        if cookie(TEACHER_COOKIE) != f"{code}:{key}":  # (a page that sent it needs no script)
            set_cookie(TEACHER_COOKIE, f"{code}:{key}", ROOM_TTL)
    if st.query_params.get("room") != code:
        st.query_params["room"] = code


def teacher_cookie(wanted: str | None) -> tuple[str, str] | None:
    """(code, key) from this browser's teacher cookie when it drives room ``wanted`` (or, with
    no room in the address, whichever room it names), else None."""
    code, _, key = cookie(TEACHER_COOKIE).partition(":")
    if not key or (wanted and wanted != code) or not rooms().is_teacher(code, key):
        return None
    return code, key


def take_room_view() -> bool:
    """A teacher's tab takes the room's view when another tab (or an earlier run of this one)
    published a version this tab has not seen: its next press starts from there. True if it
    did. Safe in a widget's callback: it sets the widgets' values."""
    state = st.session_state
    code = state.get("room")
    try:
        room = rooms().get(code)
    except RoomError:
        return False
    if room["version"] in (0, state.get("room_version")):
        return False
    fresh = state.get("room_version", -1) == -1
    if fresh and any(name in st.query_params for name in VIEW_FIELDS if name != "page"):
        state["room_version"] = room["version"]  # a link with its own view: the class goes there
        return False
    state["room_version"] = room["version"]
    apply_view(room["view"])
    return True


def from_room_view() -> bool:
    """In a teacher's Previous/Next: start from the room's view if another tab moved it."""
    if not is_teacher():
        return False
    try:
        return take_room_view()
    except StoreError:
        return False  # the press goes ahead from this tab's view; publishing says the rest


def apply_view(view: dict) -> None:
    """Set the widgets' values to the teacher's view (each student keeps their own language);
    the view's fields are the widgets' keys, but for the page and the focus row."""
    for field in VIEW_FIELDS:
        if field in view and field not in ("focus", "page"):
            st.session_state[field] = view[field]
    if "page" in view:
        st.session_state[ROOM_PAGE] = view["page"]  # app.py goes there, after the navigation
    if "focus" in view:
        st.session_state[ROOM_FOCUS] = view["focus"]  # the walkthrough turns it into its label
    _land(view)


def _land(view: dict) -> None:
    """A teacher's lesson item names a section of its page: each student's page brings it into
    view once, when the teacher's item (its page and section) changes, not at every change of
    the teacher's settings."""
    where = (view.get("page"), view.get("section", ""))
    if where[1] and st.session_state.get(LANDED) != where:
        st.session_state[LANDING] = (where[1], "/".join(where))
    st.session_state[LANDED] = where


def is_teacher() -> bool:
    return "room_key" in st.session_state


def current_view(settings) -> dict:
    """The view a teacher's run leaves: its page, the followed sidebar settings as drawn, and
    the walkthrough's own where this run set them (the focus row by its number)."""
    state = st.session_state
    view = {"page": state.get(PAGE_SCRIPT, "walkthrough")}
    if state.get(SECTION):  # a lesson's item: the section of its page it is about
        view["section"] = state[SECTION]
    for s in FOLLOWED:
        value = getattr(settings, s.name) if s.widget != "page" else state.get(s.state_key)
        if s.widget == "coded_toggle":  # the switch's own value (the numbering: 1 -> True)
            value = bool(value)
        if value is not None and (s.type is not int or isinstance(value, int)):
            view[s.state_key] = value
    return view


def leave() -> None:
    if is_teacher():  # the browser forgets the key too, and this session stops taking it back
        set_cookie(TEACHER_COOKIE, "", 0)
        st.session_state[LEFT_ROOM] = True
    for key in ("room", "room_key", "room_version", "room_follow"):
        st.session_state.pop(key, None)
    if "room" in st.query_params:
        del st.query_params["room"]
    st.rerun()
