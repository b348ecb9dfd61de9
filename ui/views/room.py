"""The room page: open a room (its two links and the students' QR code), or join one by code."""

import streamlit as st

from classroom import teach_link
from classroom.rooms import RoomError, normal_code
from ui.kit.browser import browser_id, write_cookies
from ui.kit.i18n import t
from ui.room import pulse as room_pulse
from ui.room.connection import (
    enter,
    guarded,
    is_teacher,
    join_allowed,
    join_failed,
    rooms,
    shown_code,
    store_problem,
)
from ui.room.invite import base_url, qr_png
from ui.shell.registry import script_path


def store_notice() -> bool:
    """The page says why rooms cannot work here (the store failed its test write): True if so."""
    problem = store_problem()
    if problem:
        st.error(t("room.store_broken", reason=problem), icon=":material/error:")
    return bool(problem)


def teachers_link(code: str, key: str) -> str:
    """Where serve.py answers it, the link that sets the teacher's cookie before the page loads
    (classroom/teach_link.py); else the page takes the key from its address and drops it."""
    if room_pulse.served():  # (serve.py's routes: the pulse and the teacher's link)
        return f"{base_url()}{teach_link.PATH}?room={code}&key={key}"
    return f"{base_url()}/?room={code}&key={key}"


@guarded
def open_a_room() -> None:
    if st.button(t("room.open"), key="room_open", type="primary"):
        try:
            code, key = rooms().open(browser_id())
        except RoomError as error:
            st.error(t(f"room.{error.code}", code=""))
            return
        st.session_state["room_opened"] = (code, key)
        enter(code, key)  # this browser keeps the key from now on: a reload cannot lose the room
        write_cookies()  # (this run's keep_cookies came before the press)
    state = st.session_state
    opened = state.get("room_opened") or (
        (state["room"], state["room_key"]) if is_teacher() else None
    )  # after a reload, the room this browser teaches (its cookie)
    if not opened:
        return
    code, key = opened
    students = f"{base_url()}/?room={code}"
    st.success(t("room.opened", code=code))
    left, right = st.columns([3, 2])
    with left:
        st.markdown(t("room.students_link"))
        st.code(students, language=None)
        with st.expander(t("room.teacher_link")):
            st.code(teachers_link(code, key), language=None)
            st.caption(t("room.teacher_link_note"))
        if st.button(t("room.go_teach"), key="room_go_teach"):
            enter(code, key)
            keep = {
                "room": code,
                **({"lang": st.query_params["lang"]} if "lang" in st.query_params else {}),
            }
            st.switch_page(script_path("walkthrough"), query_params=keep)
    with right:
        st.image(qr_png(students), caption=t("room.qr"), width=260)


@guarded
def join_a_room() -> None:
    st.subheader(t("room.join"))
    code = st.text_input(t("room.join_code"), key="room_join_code", max_chars=12)
    pressed = st.button(t("room.join_button"), key="room_join_button")
    if pressed and code.strip() and join_allowed():
        try:
            rooms().get(code)
        except RoomError as error:
            join_failed(success=False)
            st.warning(t(f"room.{error.code}", code=shown_code(code)))
            return
        join_failed(success=True)
        enter(normal_code(code))
        st.switch_page(script_path("walkthrough"))
