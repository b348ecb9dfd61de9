"""The room page: open a room (its two links and the students' QR code), or join one by code."""

import io
from urllib.parse import urlsplit

import segno
import streamlit as st

from classroom.rooms import RoomError, normal_code
from ui.browser import browser_id
from ui.i18n import t
from ui.room import (
    become_teacher,
    guarded,
    join_allowed,
    join_failed,
    rooms,
    shown_code,
    store_problem,
)


def base_url() -> str:
    """The app's address as this browser reached it (scheme, host, port), without a path."""
    try:
        parts = urlsplit(st.context.url or "")
    except Exception:  # no browser (AppTest)
        return "http://localhost:8501"
    return f"{parts.scheme}://{parts.netloc}" if parts.netloc else "http://localhost:8501"


def qr_png(text: str) -> bytes:
    """A QR code of ``text`` as PNG bytes, made here by segno (nothing fetched)."""
    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="png", scale=8, border=2)
    return out.getvalue()


def store_notice() -> bool:
    """The page says why rooms cannot work here (the store failed its test write): True if so."""
    problem = store_problem()
    if problem:
        st.error(t("room_store_broken", reason=problem), icon=":material/error:")
    return bool(problem)


@guarded
def open_a_room() -> None:
    if st.button(t("room_open"), key="room_open", type="primary"):
        try:
            code, key = rooms().open(browser_id())
        except RoomError as error:
            st.error(t(f"room_{error.code}", code=""))
            return
        st.session_state["room_opened"] = (code, key)
    opened = st.session_state.get("room_opened")
    if not opened:
        return
    code, key = opened
    students = f"{base_url()}/?room={code}"
    st.success(t("room_opened", code=code))
    left, right = st.columns([3, 2])
    with left:
        st.markdown(t("room_students_link"))
        st.code(students, language=None)
        with st.expander(t("room_teacher_link")):
            st.code(f"{base_url()}/?room={code}&key={key}", language=None)
            st.caption(t("room_teacher_link_note"))
        if st.button(t("room_go_teach"), key="room_go_teach"):
            become_teacher(code, key)
            keep = {
                "room": code,
                **({"lang": st.query_params["lang"]} if "lang" in st.query_params else {}),
            }
            st.switch_page("pages/walkthrough.py", query_params=keep)
    with right:
        st.image(qr_png(students), caption=t("room_qr"), width=260)


@guarded
def join_a_room() -> None:
    st.subheader(t("room_join"))
    code = st.text_input(t("room_join_code"), key="room_join_code", max_chars=12)
    pressed = st.button(t("room_join_button"), key="room_join_button")
    if pressed and code.strip() and join_allowed():
        try:
            rooms().get(code)
        except RoomError as error:
            join_failed(success=False)
            st.warning(t(f"room_{error.code}", code=shown_code(code)))
            return
        join_failed(success=True)
        st.session_state.update(room=normal_code(code), room_version=-1, room_follow=True)
        st.query_params["room"] = normal_code(code)
        st.switch_page("pages/walkthrough.py")
