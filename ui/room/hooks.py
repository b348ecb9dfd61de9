"""The room's hooks in app.py's run: ``join_from_url()`` before the sidebar (a pending view from
the room is applied to the widgets there), ``room_sets()`` for the sidebar, ``room_panel()``
after it, ``follow_page()`` once the navigation knows the page, ``publish_view()`` after the page
(the teacher's every run publishes the view) and ``keep_cookies()``."""

import streamlit as st

from classroom.rooms import RoomError, normal_code
from ui.kit.browser import write_cookies
from ui.kit.i18n import t
from ui.kit.session import LEFT_ROOM, PAGE_SCRIPT, ROOM_PAGE, ROOM_VIEW, ROOM_VIEW_TAKEN
from ui.kit.settings import FOLLOWED, SIDEBAR
from ui.room import student, teacher
from ui.room.connection import (
    apply_view,
    current_view,
    enter,
    guarded,
    is_teacher,
    leave,
    rooms,
    shown_code,
    take_room_view,
    teacher_cookie,
)
from ui.shell.registry import by_script, script_path

ROOM_SETS = tuple(s for s in FOLLOWED if s in SIDEBAR)  # the sidebar's rows a room's view sets


@guarded
def join_from_url() -> None:
    """Take ?room=CODE (and a teacher's &key=…, which leaves the address bar at once), or the
    teacher's cookie, and apply a view the room has that this tab has not taken yet. Runs
    before any widget is drawn."""
    params, state = st.query_params, st.session_state
    wanted = normal_code(params["room"]) if "room" in params else None
    if wanted:
        enter(wanted)
    if "key" in params:
        key = params["key"]
        del params["key"]  # the key never stays in the address bar: a projector shows it
        if wanted and rooms().is_teacher(wanted, key):
            enter(wanted, key)
    if not is_teacher() and not state.get(LEFT_ROOM):
        kept = teacher_cookie(wanted)
        if kept:
            enter(*kept)
    if is_teacher():
        take_room_view()
    elif state.get("room"):  # a student: the room as it is now (locked: its view, always)
        student.catch_up(state["room"])
    view = state.pop(ROOM_VIEW, None)
    if view is not None:
        apply_view(view)
        state[ROOM_VIEW_TAKEN] = view  # (a following student's fragment compares with it)


def room_sets() -> tuple[tuple, str]:
    """The sidebar's settings the room sets for this tab now, and the line said in their place:
    every followed one while a student follows the teacher (always, while the teacher has
    everyone following), none otherwise. A following student's own sentence would not be the
    class's view, and each widget left out is less for the server to send every phone on every
    change of the teacher's."""
    if student.locked():
        return ROOM_SETS, t("shell.room_sets_locked")
    if not student.following():  # a teacher, a learner alone, or a student exploring
        return (), ""
    return ROOM_SETS, t("shell.room_sets", follow=t("room.follow"))


@guarded
def room_panel(settings) -> None:
    """The room's band at the top of every page, for the teacher or for a student."""
    code = st.session_state.get("room")
    if not code:
        return
    try:
        rooms().get(code)
    except RoomError as error:
        st.warning(t(f"room.{error.code}", code=shown_code(code)), icon=":material/meeting_room:")
        if st.button(t("room.leave"), key="room_leave_bad"):
            leave()
        return
    try:
        if is_teacher():
            teacher.panel(code, settings)
        else:
            student.panel(code)
    except (RoomError, PermissionError):  # closed or expired meanwhile: the next run says so
        st.rerun()


def keep_cookies() -> None:
    """The cookies this session owes its browser: its id while in a room, a teacher's key."""
    write_cookies(with_browser_id=bool(st.session_state.get("room")))


def follow_page(script: str) -> None:
    """A tab following the room (a student, or a teacher's other tab) goes to its page."""
    wanted = st.session_state.pop(ROOM_PAGE, None)
    if is_teacher() and not by_script(script).class_view:  # at the desk (the room page),
        return  # the teacher's tab stays there
    if wanted and wanted != script and st.session_state.get("room"):
        if is_teacher() or st.session_state.get("room_follow", True):
            keep = {k: st.query_params[k] for k in ("lang", "room") if k in st.query_params}
            st.switch_page(script_path(wanted), query_params=keep)


@guarded
def publish_view(settings) -> None:
    """The teacher's view as the page left it: after the page ran, its widgets hold it. If
    another of the teacher's tabs moved the room meanwhile, this tab takes that view instead."""
    code = st.session_state.get("room")
    here = by_script(st.session_state.get(PAGE_SCRIPT, "walkthrough"))
    if not (code and is_teacher() and here.class_view):
        return  # (at the desk, the class keeps the last view the teacher showed it)
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
        st.session_state[ROOM_VIEW] = view
        st.rerun()
