"""The teacher's side of a room: who is connected, ask the class about the step on screen, watch
the answers arrive, reveal; and the class's practice (ui/room/practice_panel.py)."""

import dataclasses
import random

import streamlit as st

from core import tiny
from core.lessons.questions import (
    PAGE_KINDS,
    STEP_KINDS,
    first_layer_question,
    induction_step_question,
    make_question,
    next_token_question,
)
from scheduling.training import Settings
from ui.figures.bars import answer_bars
from ui.figures.place import plot
from ui.kit import question_text as questions
from ui.kit.choose import selectbox
from ui.kit.i18n import labeller, t
from ui.kit.session import GEN_CANDIDATES, INSIDE_RANKS, PAGE_SCRIPT, TRAIN_SETTINGS, anonymous_id
from ui.room import invite, practice_panel
from ui.room import summary as room_summary
from ui.room.connection import POLL_S, fragment_guarded, leave, rooms
from ui.work.model_turns import RUNS
from ui.work.traces import trace_for

TRAIN_WAIT_S = 120  # the longest a teacher's Ask waits for the run it bets on


def panel(code: str, settings) -> None:
    """One band: who is here, the question to ask and Ask / Reveal; then the answers, if any."""
    room = rooms().get(code)
    with st.sidebar:
        st.subheader(t("room.sidebar", code=code))
        st.session_state["room_lock"] = bool(room.get("locked"))  # as the room has it
        st.toggle(t("room.lock"), key="room_lock", on_change=_lock, args=(code,),
                  help=t("room.lock_help"))  # fmt: skip
        question = room["question"]
        counts = rooms().answers(code, question["id"], question) if question else None
        room_summary.show(code, room, counts, settings)
        if not settings.presentation and st.toggle(t("room.show_key"), key="room_show_key"):
            st.caption(t("room.key_shown", code=code))
            st.code(st.session_state["room_key"], language=None)
        if st.button(t("room.leave"), key="room_leave"):
            leave()
    with st.container(border=True):
        page = st.session_state.get(PAGE_SCRIPT, "walkthrough")
        step = st.session_state.get("step") or st.query_params.get("step", "tokens")
        kinds = STEP_KINDS.get(step, ()) if page == "walkthrough" else PAGE_KINDS.get(page, ())
        if page != "walkthrough":
            step = page  # (each page starts from its own first kind, as each step does)
        here, which, ask, reveal = st.columns([3.6, 3, 1.7, 1.7], vertical_alignment="center")
        with here:
            connected(code)
            if st.button(t("room.how_to_join"), key="room_how_to_join", type="tertiary"):
                join_card(code)
        if kinds:
            kind = selectbox(
                which,
                t("room.q_kind"),
                kinds,
                format_func=labeller("room.q_kind"),
                key=f"q_kind_{step}",  # each step starts from its own first kind
                label_visibility="collapsed",
            )
            if ask.button(t("room.ask"), key="room_ask", type="primary"):
                _ask(code, kind, step, settings)
                st.rerun()  # the band and the summary with the new question at once
        elif not settings.presentation:  # a hint for the teacher, not for the class's screen
            which.caption(t("room.no_question_here"))
        if question and not question["revealed"]:
            if reveal.button(t("room.reveal"), key="room_reveal"):
                rooms().reveal(code, st.session_state["room_key"])
                st.rerun()  # the band at once with Close in Reveal's place
        elif question and reveal.button(t("room.close_question"), key="room_close_question"):
            rooms().close_question(code, st.session_state["room_key"])
            st.rerun()
        answers(code)
        practice_panel.show(code, settings)  # the class's lines of NumPy, once anyone sent one


@st.dialog(" ", width="large")
def join_card(code: str) -> None:
    """For latecomers, on the projector: the code in letters a back row reads, the students'
    link and its QR code (never the key); Esc or a click outside closes it."""
    link = f"{invite.base_url()}/?room={code}"
    st.html(
        f'<div style="font-size:7rem;font-weight:700;letter-spacing:0.5rem;text-align:center;'
        f'line-height:1.1">{code}</div>'
    )  # (a code is letters and digits only: nothing to escape)
    st.markdown(t("room.join_card", code=code, link=f"`{link}`"))
    left, middle, right = st.columns([1, 1, 1])
    middle.image(invite.qr_png(link), width=320)  # the whole card on a 1280 x 720 screen


def _lock(code: str) -> None:
    rooms().lock(code, st.session_state["room_key"], st.session_state["room_lock"])


@st.fragment(run_every=POLL_S)
@fragment_guarded
def connected(code: str) -> None:
    """Every second: who is here; and if another of the teacher's tabs moved the room, this tab
    follows it (the full rerun takes the room's view)."""
    room = rooms().get(code)
    if room["version"] not in (0, st.session_state.get("room_version")):
        st.rerun()
    n = rooms().connected(code)
    st.caption(t("room.teacher_band", code=code, n=n))
    exploring = min(n, rooms().explorers(code))
    lost = rooms().lost_count(code, room["version"])
    st.caption(t("room.counts", following=n - exploring, exploring=exploring, lost=lost))


def _ask(code: str, kind: str, step: str, settings) -> None:
    if kind == "next_token":  # the candidates the generate page drew in its last run
        candidates, probabilities = st.session_state.get(GEN_CANDIDATES, ((), ()))
        text = st.session_state.get("gen_text_so_far", "")[-24:]
        question = next_token_question(candidates, probabilities, text, random.randrange(2**31))
        rooms().ask(code, st.session_state["room_key"], question)
        return
    if kind == "induction_step":  # the bet on the train page's run of repeat, trained first
        question = _induction_step_question()
        rooms().ask(code, st.session_state["room_key"], question)
        return
    if kind == "first_layer":  # the answer and ranks the inside page's lens drew last
        answer, ranks = st.session_state.get(INSIDE_RANKS, ("", ()))
        question = first_layer_question(answer, ranks, random.randrange(2**31))
        rooms().ask(code, st.session_state["room_key"], question)
        return
    data = trace_for(settings)
    fields = {name: getattr(data.trace, name) for name in ("Q", "K", "V", "A", "output")}
    focus = st.session_state.get("focus")
    focus = focus if isinstance(focus, int) else data.n - 1
    head = min(int(st.session_state.get("head") or 0), settings.n_heads - 1)
    question = make_question(
        kind, step, fields, list(data.tokens), head, min(focus, data.n - 1), data.mask,
        seed=random.randrange(2**31), base=settings.base,
    )  # fmt: skip
    rooms().ask(code, st.session_state["room_key"], question)


def _induction_step_question():
    """The train page's settings on repeat, trained (or joined) now: the class bets before the
    teacher's Train plays the run back on the projector."""
    settings = st.session_state.get(TRAIN_SETTINGS) or Settings("repeat", 64, 4, 2, 600)
    settings = dataclasses.replace(settings, task="repeat")
    run = RUNS.request(settings, anonymous_id())
    with st.spinner(t("room.training_first")):
        run.event.wait(TRAIN_WAIT_S)
    half = tiny.TASKS["repeat"].chance / 2
    return induction_step_question(run.drop_step(), settings.steps, half)


@st.fragment(run_every=POLL_S)
@fragment_guarded(notice=False)  # the band's other fragment says the store is down
def answers(code: str) -> None:
    """Every second: the question and its answers so far, as a chart; the number connected
    beside it when the two disagree."""
    question = rooms().get(code)["question"]
    if not question:
        return
    st.markdown(f"**{questions.prompt(question)}**")
    counts = rooms().answers(code, question["id"], question)
    right = question["answer"] if question["revealed"] else None
    n, c = sum(counts), rooms().connected(code)
    st.caption(t("room.answered", n=n, c=c))  # the strip first, under the question
    shown = question["revealed"] or st.toggle(
        t("room.show_answers"), key=f"show_answers_{question['id']}"
    )  # the class does not copy the majority off the projector before the reveal
    if not shown:
        return
    title = t("room.answers", n=n) if n == c else t("room.answers_of_connected", n=n, c=c)
    plot(answer_bars(questions.labels(question), counts, right, title), "room_answers")
    if question["revealed"]:
        questions.show_answer(question)
