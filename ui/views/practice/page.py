"""The /practice page's own choices: the step to write (in the URL as task=, Q first), the head
(head=, counted from 0 as on the walkthrough, for the steps that have heads), and "Next" once
a step is right; the whole exercise as a notebook to take home (not on the projected screen)."""

from functools import partial

import streamlit as st

from core.practice import PER_HEAD, STEPS
from ui.kit.i18n import labeller, t
from ui.kit.number_text import shown_index
from ui.kit.url import keep_in_url, told, url_choice, whole
from ui.notebooks import practice as notebook
from ui.notebooks.offer import offer
from ui.work.traces import trace_or_stop

HEAD = "practice_head"  # its own widget: the walkthrough's head picker holds its state as ints


def step_picker() -> str:
    """The steps in the order attention computes them, one click each."""
    return url_choice(st.segmented_control, t("practice.which"), STEPS, "task", STEPS[0],
                      format_func=labeller("practice.step"))  # fmt: skip


def head_picker(step: str, settings) -> int:
    """The head to write (shown for the steps that have one, with more than one head), then the
    notebook of every step for that head."""
    head = _head(step, settings)
    take_home(settings, head)
    return head


def take_home(settings, head: int) -> None:
    """Every step for head ``head`` as a notebook to write at home (ui/notebooks/practice.py),
    as every page offers its own; a file to take home: not on the projected screen."""
    if settings.presentation:
        return
    build = partial(notebook.build, trace_or_stop(settings), settings, settings.lang, head)
    offer(build, notebook.FILE, label=t("notebook.practice_download"))


def _head(step: str, settings) -> int:
    n_heads, state = settings.n_heads, st.session_state
    told("head", whole(0, n_heads - 1))
    if state.get(HEAD) not in range(n_heads):
        asked = st.query_params.get("head", "0")
        state[HEAD] = int(asked) if whole(0, n_heads - 1)(asked) else 0
    if step not in PER_HEAD or n_heads == 1:
        return state[HEAD]
    head = st.segmented_control(t("practice.head"), range(n_heads), key=HEAD, required=True,
                                format_func=lambda h: shown_index(h, settings.base))  # fmt: skip
    head = state[HEAD] if head is None else head
    keep_in_url("head", str(head), "0")
    return head


def _go(step: str) -> None:
    st.session_state["task"] = step


def next_button(step: str) -> None:
    """After a right line: on to the next step (none after the last)."""
    index = STEPS.index(step)
    if index + 1 < len(STEPS):
        following = STEPS[index + 1]
        st.button(t("practice.next", step=t(f"practice.step_{following}")), type="primary",
                  key="practice_next", on_click=_go, args=(following,),
                  icon=":material/arrow_forward:")  # fmt: skip
