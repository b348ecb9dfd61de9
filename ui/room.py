"""The classroom in the app: the teacher's and the students' side of a room (classroom/rooms.py).

app.py calls ``join_from_url()`` before the sidebar (a pending view from the room is applied
to the widgets there), ``room_panel()`` after it and ``publish_view()`` after the page: the
teacher's every run publishes the view. A student's fragment looks at the room every second,
counts them as connected, follows the view unless they chose to explore, and shows the current
question; a teacher's second tab follows the room the same way.

Every call into the store goes through ``guarded``: a store that fails (Redis restarting, a full
disk) shows "reconnecting…" in place of the room's band, never an error box, and a fragment
polls until the store answers again, then the page carries on by itself.
"""

import functools
import logging
import threading
import time

import streamlit as st

from classroom.rooms import (
    CODE_LENGTH,
    ROOM_TTL,
    VIEW_FIELDS,
    RoomError,
    Rooms,
    join_wait,
    normal_code,
)
from classroom.store import StoreError, shared_problem, shared_store
from ui.browser import cookie, set_cookie, write_cookies
from ui.escape import markdown_text
from ui.i18n import t

POLL_S = 1.0
TEACHER_COOKIE = "self_attention_teacher"  # "CODE:KEY" of the room this browser teaches
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
    return t(f"store_{error.code}", **error.params)


def _debug() -> bool:
    return st.get_option("global.developmentMode") or st.get_option("logger.level") == "debug"


def store_down(error: StoreError) -> None:
    """The one face of a failing store: a notice, and (outside a fragment) a fragment that
    reruns the page once the store answers again."""
    _LOG.warning("room store: %s", error.reason)
    st.session_state["_room_store_down"] = True
    st.warning(t("room_reconnecting"), icon=":material/sync:")
    if _debug():
        st.caption(t("room_reconnecting_why", reason=markdown_text(store_reason(error))))


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
    wait = st.session_state.get("_join_next_at", 0.0) - time.time()
    if wait > 0:
        st.warning(t("room_join_wait", s=int(wait) + 1))
        return False
    return True


def join_failed(success: bool) -> None:
    failures = 0 if success else st.session_state.get("_join_failures", 0) + 1
    st.session_state["_join_failures"] = failures
    st.session_state["_join_next_at"] = time.time() + join_wait(failures)


def become_teacher(code: str, key: str) -> None:
    """This session drives room ``code``; the browser keeps the room and its key in a cookie,
    so that a reload, a new tab or an address typed by hand (``?big=true``) keeps it the
    teacher. The address keeps ``room=CODE``, never the key."""
    state = st.session_state
    if state.get("room") != code:
        state.update(room=code, room_version=-1, room_follow=True)
    state["room_key"] = key
    state.pop("_left_room", None)
    if cookie(TEACHER_COOKIE) != f"{code}:{key}":  # (a page that sent it needs no script)
        set_cookie(TEACHER_COOKIE, f"{code}:{key}", ROOM_TTL)
    st.query_params["room"] = code


def _teacher_cookie(wanted: str | None) -> tuple[str, str] | None:
    """(code, key) from this browser's teacher cookie when it drives room ``wanted`` (or, with
    no room in the address, whichever room it names), else None."""
    code, _, key = cookie(TEACHER_COOKIE).partition(":")
    if not key or (wanted and wanted != code) or not rooms().is_teacher(code, key):
        return None
    return code, key


@guarded
def join_from_url() -> None:
    """Take ?room=CODE (and a teacher's &key=…, which leaves the address bar at once), or the
    teacher's cookie, and apply a view the room has that this tab has not taken yet. Runs
    before any widget is drawn."""
    params, state = st.query_params, st.session_state
    wanted = normal_code(params["room"]) if "room" in params else None
    if wanted and state.get("room") != wanted:
        state.update(room=wanted, room_version=-1, room_follow=True)
        state.pop("room_key", None)
    if "key" in params:
        key = params["key"]
        del params["key"]  # the key never stays in the address bar: a projector shows it
        if wanted and rooms().is_teacher(wanted, key):
            become_teacher(wanted, key)
    if not is_teacher() and not state.get("_left_room"):
        kept = _teacher_cookie(wanted)
        if kept:
            become_teacher(*kept)
    if is_teacher():
        take_room_view()
    elif state.get("room") and state.get("_room_locked"):  # everyone follows: the room's view,
        state["_room_view"] = rooms().get(state["room"])["view"]  # whatever this run changed
    view = state.pop("_room_view", None)
    if view is not None:
        _apply(view)


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
    _apply(room["view"])
    return True


def from_room_view() -> bool:
    """In a teacher's Previous/Next: start from the room's view if another tab moved it."""
    if not is_teacher():
        return False
    try:
        return take_room_view()
    except StoreError:
        return False  # the press goes ahead from this tab's view; publishing says the rest


def _apply(view: dict) -> None:
    """Set the widgets' values to the teacher's view (each student keeps their own language);
    the view's fields are the widgets' keys, but for the focus row."""
    for field in VIEW_FIELDS:
        if field in view and field not in ("focus", "page"):
            st.session_state[field] = view[field]
    if "page" in view:
        st.session_state["_room_page"] = view["page"]  # app.py goes there, after the navigation
    if "focus" in view:
        st.session_state["_room_focus"] = view["focus"]  # the walkthrough turns it into its label


def is_teacher() -> bool:
    return "room_key" in st.session_state


def current_view(settings) -> dict:
    state = st.session_state
    view = {
        "page": state.get("_page_script", "walkthrough"),
        "sentence": settings.sentence,
        "d_model": settings.d_model,
        "n_heads": settings.n_heads,
        "seed": settings.seed,
        "pe": settings.positional,
        "mask": settings.mask,
    }
    for key in ("step", "head"):
        if state.get(key) is not None:
            view[key] = state[key]
    if isinstance(state.get("focus"), int):
        view["focus"] = state["focus"]
    return view


@guarded
def room_panel(settings) -> None:
    """The room's band at the top of every page, for the teacher or for a student."""
    code = st.session_state.get("room")
    if not code:
        return
    try:
        rooms().get(code)
    except RoomError as error:
        st.warning(t(f"room_{error.code}", code=shown_code(code)), icon=":material/meeting_room:")
        if st.button(t("room_leave"), key="room_leave_bad"):
            leave()
        return
    try:
        if is_teacher():
            from ui import room_teacher

            room_teacher.panel(code, settings)
        else:
            from ui import room_student

            room_student.panel(code)
    except (RoomError, PermissionError):  # closed or expired meanwhile: the next run says so
        st.rerun()


def keep_cookies() -> None:
    """The cookies this session owes its browser: its id while in a room, a teacher's key."""
    write_cookies(with_browser_id=bool(st.session_state.get("room")))


def follow_page(script: str) -> None:
    """A tab following the room (a student, or a teacher's other tab) goes to its page."""
    wanted = st.session_state.pop("_room_page", None)
    if wanted and wanted != script and st.session_state.get("room"):
        if is_teacher() or st.session_state.get("room_follow", True):
            keep = {k: st.query_params[k] for k in ("lang", "room") if k in st.query_params}
            st.switch_page(f"pages/{wanted}.py", query_params=keep)


@guarded
def publish_view(settings) -> None:
    """The teacher's view as the page left it: after the page ran, its widgets hold it. If
    another of the teacher's tabs moved the room meanwhile, this tab takes that view instead."""
    code = st.session_state.get("room")
    if not (code and is_teacher()):
        return
    seen = st.session_state.get("room_version", -1)
    mine = current_view(settings)
    try:
        version, view = rooms().publish(
            code, st.session_state["room_key"], mine, seen=None if seen < 0 else seen
        )
    except (RoomError, PermissionError):
        return  # expired meanwhile: the next run says so
    st.session_state["room_version"] = version
    if view != mine:  # (current_view holds only VIEW_FIELDS)
        st.session_state["_room_view"] = view
        st.rerun()


def leave() -> None:
    if is_teacher():  # the browser forgets the key too, and this session stops taking it back
        set_cookie(TEACHER_COOKIE, "", 0)
        st.session_state["_left_room"] = True
    for key in ("room", "room_key", "room_version", "room_follow"):
        st.session_state.pop(key, None)
    if "room" in st.query_params:
        del st.query_params["room"]
    st.rerun()
