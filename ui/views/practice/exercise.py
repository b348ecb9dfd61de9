"""One step to write: what to write and its shape, the names a line may read with their shapes,
the box (Check, or Enter), then the verdict, the learner's map beside the walkthrough's and
their difference, and a hint on demand once a line has been checked. The /practice page draws
one for its step; the walkthrough one in a folded section under each attention step.

A step's line stays in its box (a wrong one too), and comes back when the learner returns to
the step, on either page. The line is checked by core.practice (parsed, never run as Python)."""

import numpy as np
import streamlit as st

from core import practice
from ui.kit.fold import fold
from ui.kit.i18n import labeller, t
from ui.kit.number_text import shown_index
from ui.room import practice as room_practice
from ui.views.practice import charts, verdict
from ui.views.practice.verdict import shape_text

LINES = "_practice_lines"  # {step: the last line checked}, kept when the box is not drawn
CHECKED = "_practice_checked"  # {step: (line, head)}: what the verdict on screen is for
TRIES = "_practice_tries"  # {step: lines checked}: the hint is offered after the first
HINTED = "_practice_hinted"  # steps whose hint the learner asked for
OPERATIONS = (
    "@  +  -  *  /  **  .T  .shape  .sum(axis=…, keepdims=…)  .max(…)  .mean(…)\n"
    "np.exp  np.sqrt  np.where  np.maximum  np.matmul  np.transpose  np.concatenate  np.inf\n"
    "softmax(x, axis=…)"
)


def task(step: str, data, settings, head: int) -> str:
    """What to write, and the shape it has here."""
    shape = shape_text(practice.expected(step, data.trace, head).shape)
    return t(f"practice.task_{step}", h=shown_index(head, settings.base), shape=shape,
             first=shown_index(0, settings.base))  # fmt: skip


def names_line(step: str, data, head: int) -> str:
    """'You can use: `X` [5 × 8] · `W_Q` [8 × 4] · … · `d_k` = 4': each name a line may read."""
    parts = []
    for name, value in practice.names_for(step, data.trace, head, data.W).items():
        if np.ndim(value) == 0:
            parts.append(f"`{name}`\u00a0=\u00a0{value:g}")
            continue
        note = {"mask": "practice.names_mask", "O_heads": "practice.names_heads"}.get(name)
        extra = f" ({t(note)})" if note else ""
        parts.append(f"`{name}`\u00a0{shape_text(np.shape(value))}{extra}")
    return f"**{t('practice.names')}** " + " · ".join(parts)


def exercise(step: str, data, settings, head: int) -> bool:
    """The whole exercise for ``step`` (head ``head`` where the step has heads); True once the
    line in the box is right."""
    state = st.session_state
    lines, checked = state.setdefault(LINES, {}), state.setdefault(CHECKED, {})
    box = f"practice_line_{step}"
    if box not in state and step in lines:
        state[box] = lines[step]  # back at this step: its line again
    st.markdown(task(step, data, settings, head))
    st.markdown(names_line(step, data, head))
    with st.popover(t("practice.operations"), icon=":material/function:"):  # (folded: the
        st.code(OPERATIONS, language=None, wrap_lines=True)  # refusals name them too)
    with st.form(f"practice_form_{step}", border=False, enter_to_submit=True):
        row = st.container(horizontal=True, vertical_alignment="bottom")
        typed = row.text_input(t("practice.line", name=step), key=box, max_chars=400,
                               placeholder=t("practice.placeholder", name=step))  # fmt: skip
        pressed = row.form_submit_button(t("practice.check"), type="primary",
                                         key=f"practice_check_{step}")  # fmt: skip
    if pressed:
        lines[step], checked[step] = typed, (typed, head)
        state.setdefault(TRIES, {})[step] = state.get(TRIES, {}).get(step, 0) + 1
    if checked.get(step) != (typed, head):  # nothing checked yet, or for another head
        verdict.quiet()
        return False
    result = practice.check(step, typed, data.trace, head, data.W)
    if pressed:
        room_practice.record(settings, step, result, head=head)
    verdict.show(step, result)
    if not result.ok:
        hint(step)
    right = practice.expected(step, data.trace, head)
    charts.draw(step, result.value, right, data, settings, f"practice_{step}")
    return result.ok


def _ask_hint(step: str) -> None:
    st.session_state.setdefault(HINTED, set()).add(step)


def hint(step: str) -> None:
    """After a first try: the Hint button, and the hint once asked for (never the line)."""
    if not st.session_state.get(TRIES, {}).get(step):
        return
    if step in st.session_state.get(HINTED, set()):
        st.info(t(f"practice.hint_{step}"), icon=":material/lightbulb:")
    else:
        st.button(t("practice.hint"), key=f"practice_hint_{step}", icon=":material/lightbulb:",
                  on_click=_ask_hint, args=(step,))  # fmt: skip


def folded(steps: tuple, data, settings, head: int) -> None:
    """The walkthrough's "Write it yourself" under an attention step: its exercise (a step that
    computes several, Q, K and V, picks one first)."""
    box = fold(t("practice.folded"), f"practice_fold_{steps[0]}", icon=":material/edit_note:")
    if not box:  # closed: nothing of it drawn (ui/kit/fold.py)
        return
    with box:
        step = steps[0]
        if len(steps) > 1:
            step = st.segmented_control(
                t("practice.which"), steps, key=f"practice_pick_{steps[0]}", default=steps[0],
                required=True, format_func=labeller("practice.step"),
            )  # fmt: skip
        exercise(step or steps[0], data, settings, head)
