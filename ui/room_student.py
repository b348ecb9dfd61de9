"""A student's side of a room: follow the teacher (or explore alone), and answer questions."""

import streamlit as st

from classroom.rooms import RoomError
from classroom.store import StoreError
from ui import questions
from ui.browser import browser_id
from ui.escape import markdown_text
from ui.i18n import t
from ui.room import POLL_S, become_teacher, fragment_guarded, leave, rooms


def _snap_back() -> None:
    if st.session_state.get("room_follow"):
        st.session_state["room_version"] = -1  # the teacher's view again, at the next look


def _try_key(code: str) -> None:
    """A teacher back after a reload types the key: control again, without it in the URL."""
    key = st.session_state.get("room_key_input", "")
    st.session_state["room_key_input"] = ""
    try:
        st.session_state["room_key_wrong"] = bool(key) and not rooms().is_teacher(code, key)
    except StoreError:  # the store is down: the band says so; the key can be typed again
        st.session_state["room_key_wrong"] = False
        return
    if key and not st.session_state["room_key_wrong"]:
        become_teacher(code, key)


def panel(code: str) -> None:
    with st.sidebar:
        st.subheader(t("room_sidebar", code=code))
        state = st.session_state
        if "room_follow" not in state:  # a run that drew no toggle (the store was down) lost it
            state["room_follow"] = state.get("_room_follow_kept", True)
        st.toggle(t("room_follow"), key="room_follow", on_change=_snap_back)
        state["_room_follow_kept"] = state["room_follow"]
        if st.toggle(t("room_i_am_teacher"), key="room_i_am_teacher"):
            st.text_input(
                t("room_key"), type="password", key="room_key_input", on_change=_try_key,
                args=(code,),
            )  # fmt: skip
        if st.session_state.get("room_key_wrong"):
            st.warning(t("room_key_wrong", code=code))
        if st.button(t("room_leave"), key="room_leave"):
            leave()
    live(code)


@st.fragment(run_every=POLL_S)
@fragment_guarded
def live(code: str) -> None:
    """Every second: say I am here, take the teacher's new view, show the question."""
    room_store = rooms()
    room_store.heartbeat(code, browser_id())
    try:
        room = room_store.get(code)
    except RoomError:
        st.rerun()  # expired meanwhile: the full run says so
    following = st.session_state.get("room_follow", True)
    if following and room["version"] != st.session_state.get("room_version"):
        st.session_state["room_version"] = room["version"]
        st.session_state["_room_view"] = room["view"]
        st.rerun()
    with st.container(border=True):
        state = t("room_following") if following else t("room_exploring")
        st.caption(t("room_student_band", code=code, state=state))
        if room["question"]:
            _question(code, room["question"])


def _question(code: str, question: dict) -> None:
    st.markdown(f"**{markdown_text(questions.prompt(question))}**")
    mine = st.session_state.get(f"answered_{question['id']}")
    if question["revealed"]:
        questions.show_answer(question, mine)
        return
    labels = questions.labels(question)
    if mine is None:
        choice = questions.choose(question, f"choice_{question['id']}")
        if not st.button(t("q_send"), key=f"send_{question['id']}", disabled=choice is None):
            return
        if not rooms().answer(code, question["id"], browser_id(), choice):
            st.warning(t("q_closed"))
            return
        mine = st.session_state[f"answered_{question['id']}"] = choice
    st.caption(t("q_sent", answer=markdown_text(labels[mine])))
