"""Predict first (URL predict=true): at each walkthrough step the learner answers a question about
the current numbers before the result is shown. The questions come from core/lessons/questions.py,
the generator the classroom's "Ask the class" uses; a tally is kept for the session."""

import zlib
from dataclasses import asdict

import streamlit as st

from core.lessons.questions import STEP_KINDS, make_question
from ui.kit import question_text as questions
from ui.kit.escape import markdown_text
from ui.kit.i18n import t
from ui.kit.url import keep_in_url

TALLY = "_predict_tally"  # {question id: (chosen, right answer)}


def toggle() -> bool:
    """The switch, bound to the URL's predict=true."""
    start = st.query_params.get("predict", "false").lower() == "true"
    on = st.toggle(
        t("walkthrough.predict_toggle"),
        value=start,
        key="predict",
        help=t("walkthrough.predict_help"),
    )
    keep_in_url("predict", "true" if on else "false", "false")
    return on


def question_for(step: str, data, head: int, focus: int, base: int) -> dict | None:
    """This step's own question about these numbers (None where the step asks nothing)."""
    kinds = STEP_KINDS.get(step)
    if not kinds:
        return None
    tr = data.trace
    fields = {name: getattr(tr, name) for name in ("Q", "K", "V", "A", "output")}
    view = f"{step}|{head}|{focus}|{'|'.join(data.tokens)}"
    seed = zlib.crc32(view.encode("utf-8"))  # one question per view, the same in every process
    question = asdict(
        make_question(kinds[0], step, fields, list(data.tokens), head, focus, data.mask, seed, base)
    )
    question["id"] = f"{view}|{base}"
    return question


def gate(step: str, data, head: int, focus: int, base: int) -> bool:
    """Ask, and say whether the step's result may be shown now (answered, or nothing to ask)."""
    question = question_for(step, data, head, focus, base)
    if question is None:
        return True
    tally = st.session_state.setdefault(TALLY, {})
    with st.container(border=True):
        st.markdown(
            f"**{t('walkthrough.predict_title')}** {markdown_text(questions.prompt(question))}"
        )
        if question["id"] in tally:
            questions.show_answer(question, tally[question["id"]][0])
            _tally_line(tally)
            return True
        choice = questions.choose(question, f"predict_{question['id']}")
        if st.button(t("walkthrough.predict_check"), key="predict_check", disabled=choice is None):
            tally[question["id"]] = (choice, question["answer"])
            st.rerun()
        st.caption(t("walkthrough.predict_waiting"))
        _tally_line(tally)
    return False


def _tally_line(tally: dict) -> None:
    if tally:
        right = sum(chosen == answer for chosen, answer in tally.values())
        st.caption(t("walkthrough.predict_tally", right=right, count=len(tally)))
