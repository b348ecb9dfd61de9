"""A student's side of a room: follow the teacher (or explore alone), and answer questions."""

import time

import streamlit as st

from classroom.pulse import HEARTBEAT_S, pulse  # a student says "I am here" this often
from classroom.rooms import RoomError
from classroom.store import StoreError
from ui.kit import question_text as questions
from ui.kit.browser import browser_id
from ui.kit.escape import markdown_text
from ui.kit.i18n import labeller, t
from ui.kit.session import PAGE_SCRIPT, ROOM_LOCKED, ROOM_QUESTION_OPEN, ROOM_VIEW
from ui.room import pulse as room_pulse
from ui.room.connection import POLL_S, enter, fragment_guarded, guarded, is_teacher, leave, rooms


def following() -> bool:
    """This tab is a student's in a room, following the teacher (not exploring alone, nor just
    moved away on their own: the band's flag the panel turns into "follow" off)."""
    state = st.session_state
    return bool(
        state.get("room")
        and not is_teacher()
        and state.get("room_follow", True)
        and not state.get("_room_follow_off")
    )


def result_hidden() -> bool:
    """While the teacher's question is open, a following student's page hides the step's result,
    its shapes and its explanation (the walkthrough asks this, as predict-first's gate)."""
    return following() and bool(st.session_state.get(ROOM_QUESTION_OPEN))


def asking(room: dict) -> str | None:
    """The id of the room's question while it takes answers (asked, not revealed), else None."""
    question = room["question"]
    return question["id"] if question and not question["revealed"] else None


def catch_up(code: str) -> None:
    """A student's run starts from the room as it is now, before any widget is drawn: the lock,
    the open question and (when following, or locked) the teacher's latest view. The band then
    finds nothing new to redraw: a change costs one run of the page, not two."""
    state = st.session_state
    try:
        room = rooms().get(code)
    except RoomError:
        return  # closed or expired: the band says so
    state[ROOM_LOCKED] = bool(room.get("locked"))
    state[ROOM_QUESTION_OPEN] = asking(room)
    following = state.get("room_follow", True)
    if locked() or (following and room["version"] != state.get("room_version")):
        state["room_version"] = room["version"]
        state[ROOM_VIEW] = room["view"]  # join_from_url applies it


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
        enter(code, key)


def locked() -> bool:
    """The teacher has everyone following (a student's own navigation is off)."""
    state = st.session_state
    return bool(state.get("room") and not is_teacher() and state.get(ROOM_LOCKED))


def _back_to_the_teacher() -> None:
    st.session_state.update(room_follow=True, room_version=-1)


def panel(code: str) -> None:
    with st.sidebar:
        st.subheader(t("room.sidebar", code=code))
        state = st.session_state
        if "room_follow" not in state:  # a run that drew no toggle (the store was down) lost it
            state["room_follow"] = state.get("_room_follow_kept", True)
        if state.pop("_room_follow_off", False):  # the student moved away on their own
            state["room_follow"] = False
        everyone_follows = locked()
        if everyone_follows:
            state["room_follow"] = True
        st.toggle(t("room.follow"), key="room_follow", on_change=_snap_back,
                  disabled=everyone_follows,
                  help=t("room.locked_note") if everyone_follows else None)  # fmt: skip
        state["_room_follow_kept"] = state["room_follow"]
        if st.toggle(t("room.i_am_teacher"), key="room_i_am_teacher"):
            st.text_input(
                t("room.key"), type="password", key="room_key_input", on_change=_try_key,
                args=(code,),
            )  # fmt: skip
        if st.session_state.get("room_key_wrong"):
            st.warning(t("room.key_wrong", code=code))
        if st.button(t("room.leave"), key="room_leave"):
            leave()
    if room_pulse.served():  # the browser asks the room's pulse and reruns the page on a change
        _band(code)
        room_pulse.listen(code, state.get("_room_pulse", ""), away=not state["room_follow"])
    else:  # no pulse here (`streamlit run app.py`, AppTest): the band looks every second
        _band_every_second(code)
    lost_button(code)


def lost_button(code: str) -> None:
    """The raised hand, "I'm lost", for the view on screen (drawn with the page, not every
    second: a new view from the teacher reruns the page, and clears it). A Material icon that
    Streamlit bundles, not an emoji: a projector's machine may have no emoji font."""
    state = st.session_state
    version = state.get("room_version", -1)
    if state.get(f"_lost_at_{version}"):
        st.caption(t("room.lost_sent"))
    elif st.button(t("room.lost"), key="room_lost", type="tertiary"):
        rooms().lost(code, browser_id(), version)
        state[f"_lost_at_{version}"] = True
        st.rerun()


def _look(code: str) -> None:
    """Say I am here, take the teacher's new view, show the question: with the page, and (with
    no pulse) every second."""
    room_store, state = rooms(), st.session_state
    now = time.monotonic()
    if now - state.get("_beat_at", -HEARTBEAT_S) >= HEARTBEAT_S:  # "here" every few seconds
        room_store.heartbeat(code, browser_id())  # (connected means seen within ALIVE_S)
        state["_beat_at"] = now
    try:
        room = room_store.get(code)
    except RoomError:
        st.rerun()  # expired meanwhile: the full run says so
    if bool(room.get("locked")) != bool(state.get(ROOM_LOCKED)):  # locked or unlocked: redraw
        state[ROOM_LOCKED] = bool(room.get("locked"))
        state["room_version"] = -1  # (locked: back to the teacher's view at once)
        st.rerun()
    following = state.get("room_follow", True)
    if following and room["version"] != state.get("room_version"):
        state["room_version"] = room["version"]
        state[ROOM_VIEW] = room["view"]
        st.rerun()
    mine, theirs = state.get("step"), room["view"].get("step")
    page = state.get(PAGE_SCRIPT) == room["view"].get("page", state.get(PAGE_SCRIPT))
    moved = bool(mine and theirs and (mine != theirs or not page))
    if following and moved:  # a following student pressed Next on their own
        if locked():
            state["room_version"] = -1  # everyone follows: straight back
        else:
            state["_room_follow_off"] = True  # now exploring, and told where the teacher is
        st.rerun()
    away = not following
    if away or state.get("_marked_exploring"):  # written while away, and once on coming back
        room_store.exploring(code, browser_id(), away)
        state["_marked_exploring"] = away
    open_question = asking(room)
    if open_question != st.session_state.get(ROOM_QUESTION_OPEN):  # asked or revealed: redraw
        st.session_state[ROOM_QUESTION_OPEN] = open_question  # the step's result hidden, or shown
        st.rerun()
    state["_room_pulse"] = pulse(room)  # what this run shows (the browser's pulse compares)
    with st.container(border=True):
        doing = t("room.following") if following else t("room.exploring")
        st.caption(t("room.student_band", code=code, state=doing))
        if locked():  # in the band, not the sidebar: a phone's sidebar is folded away
            st.caption(t("room.locked_note"))
        if away:
            _away(mine, theirs)
        if room["question"]:
            _question(code, room["question"])


def _away(mine: str | None, theirs: str | None) -> None:
    """Where the teacher is (unless on this step too), and one press back to their view."""
    if theirs and mine and mine != theirs:
        step = labeller("walkthrough.step")
        st.caption(t("room.away", mine=step(mine), theirs=step(theirs)))
    st.button(t("room.back"), key="room_back", on_click=_back_to_the_teacher)


_band = guarded(_look)
_band_every_second = st.fragment(run_every=POLL_S)(fragment_guarded(_look))


def _question(code: str, question: dict) -> None:
    st.markdown(f"**{markdown_text(questions.prompt(question))}**")
    mine = st.session_state.get(f"answered_{question['id']}")
    if mine is None:  # sent before a reload, a new tab or a lost replica: kept in the store
        mine = rooms().answer_of(code, question["id"], browser_id())
        if mine is not None:
            st.session_state[f"answered_{question['id']}"] = mine
    if question["revealed"]:
        questions.show_answer(question, mine)
        return
    labels = questions.labels(question)
    if mine is None:
        choice = questions.choose(question, f"choice_{question['id']}")
        if not st.button(t("room.q_send"), key=f"send_{question['id']}", disabled=choice is None):
            return
        if not rooms().answer(code, question["id"], browser_id(), choice):
            st.warning(t("room.q_closed"))
            return
        mine = st.session_state[f"answered_{question['id']}"] = choice
    st.caption(t("room.q_sent", answer=markdown_text(labels[mine])))
