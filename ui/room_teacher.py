"""The teacher's side of a room: who is connected, ask the class about the step on screen, watch
the answers arrive, reveal."""

import random

import streamlit as st

from core.questions import STEP_KINDS, make_question
from ui import questions
from ui.compute import trace_for
from ui.figures import answer_bars
from ui.i18n import labeller, t
from ui.layout import plot
from ui.room import POLL_S, leave, rooms


def panel(code: str, settings) -> None:
    with st.sidebar:
        st.subheader(t("room_sidebar", code=code))
        if st.button(t("room_leave"), key="room_leave"):
            leave()
    with st.container(border=True):
        step = st.session_state.get("step") or st.query_params.get("step", "tokens")
        kinds = STEP_KINDS.get(step, ())
        left, middle, right = st.columns([2, 2, 1], vertical_alignment="bottom")
        if kinds:
            kind = left.selectbox(t("q_kind"), kinds, format_func=labeller("q_kind"), key="q_kind")
            if middle.button(t("room_ask"), key="room_ask", type="primary"):
                _ask(code, kind, step, settings)
        else:
            left.caption(t("room_no_question_here"))
        room = rooms().get(code)
        if room["question"] and not room["question"]["revealed"]:
            if right.button(t("room_reveal"), key="room_reveal"):
                rooms().reveal(code, st.session_state["room_key"])
        live(code)


def _ask(code: str, kind: str, step: str, settings) -> None:
    data = trace_for(settings)
    fields = {name: getattr(data.trace, name) for name in ("Q", "K", "V", "A", "output")}
    focus = st.session_state.get("focus")
    focus = int(focus.split(" · ")[0]) if isinstance(focus, str) else data.n - 1
    head = min(int(st.session_state.get("head") or 0), settings.n_heads - 1)
    question = make_question(
        kind, step, fields, list(data.tokens), head, min(focus, data.n - 1), data.mask,
        seed=random.randrange(2**31),
    )  # fmt: skip
    rooms().ask(code, st.session_state["room_key"], question)


@st.fragment(run_every=POLL_S)
def live(code: str) -> None:
    """Every second: how many are here, and the answers to the question so far."""
    room = rooms().get(code)
    st.caption(t("room_teacher_band", code=code, n=rooms().connected(code)))
    question = room["question"]
    if not question:
        return
    st.markdown(f"**{questions.prompt(question)}**")
    counts = rooms().answers(code, question["id"])
    right = question["answer"] if question["revealed"] else None
    title = t("room_answers", n=sum(counts))
    plot(answer_bars(questions.labels(question), counts, right, title), "room_answers")
    if question["revealed"]:
        questions.show_answer(question)
