"""The classroom in the app: the teacher's and the students' side of a room (classroom/rooms.py).

app.py calls ``join_from_url()`` before the sidebar (a pending view from the teacher is applied
to the widgets there), ``room_panel()`` after it and ``publish_view()`` after the page: the
teacher's every run publishes the view. A student's fragment looks at the room every second,
counts them as connected, follows the view unless they chose to explore, and shows the current
question.
"""

import threading

import streamlit as st

from classroom.rooms import VIEW_FIELDS, RoomError, Rooms, normal_code
from classroom.store import open_store
from ui.i18n import t

POLL_S = 1.0
_rooms, _lock = None, threading.Lock()


def rooms() -> Rooms:
    """The server's rooms, on the store $ROOM_STORE names (SQLite in data/ by default)."""
    global _rooms
    with _lock:
        if _rooms is None:
            _rooms = Rooms(open_store())
        return _rooms


def join_from_url() -> None:
    """Take ?room=CODE (and a teacher's &key=…, which leaves the address bar at once), and apply
    a view the teacher published since the last run. Runs before any widget is drawn."""
    params = st.query_params
    if "room" in params:
        code = normal_code(params["room"])
        if st.session_state.get("room") != code:
            st.session_state.update(room=code, room_version=-1, room_follow=True)
            st.session_state.pop("room_key", None)
        if "key" in params:
            key = params["key"]
            del params["key"]  # the key never stays in the address bar: a projector shows it
            if rooms().is_teacher(code, key):
                st.session_state["room_key"] = key
    view = st.session_state.pop("_room_view", None)
    if view is not None:
        _apply(view)


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


def room_panel(settings) -> None:
    """The room's band at the top of every page, for the teacher or for a student."""
    code = st.session_state.get("room")
    if not code:
        return
    try:
        rooms().get(code)
    except RoomError as error:
        st.warning(t(f"room_{error.code}", code=code), icon=":material/meeting_room:")
        if st.button(t("room_leave"), key="room_leave_bad"):
            leave()
        return
    if is_teacher():
        from ui import room_teacher

        room_teacher.panel(code, settings)
    else:
        from ui import room_student

        room_student.panel(code)


def follow_page(script: str) -> None:
    """A student following the teacher goes to the teacher's page (set by the last view taken)."""
    wanted = st.session_state.pop("_room_page", None)
    if wanted and wanted != script and st.session_state.get("room") and not is_teacher():
        if st.session_state.get("room_follow", True):
            keep = {k: st.query_params[k] for k in ("lang", "room") if k in st.query_params}
            st.switch_page(f"pages/{wanted}.py", query_params=keep)


def publish_view(settings) -> None:
    """The teacher's view as the page left it: after the page ran, its widgets hold it."""
    code = st.session_state.get("room")
    if code and is_teacher():
        try:
            rooms().publish(code, st.session_state["room_key"], current_view(settings))
        except (RoomError, PermissionError):
            pass  # expired meanwhile: the next run says so


def leave() -> None:
    for key in ("room", "room_key", "room_version", "room_follow"):
        st.session_state.pop(key, None)
    if "room" in st.query_params:
        del st.query_params["room"]
    st.rerun()
