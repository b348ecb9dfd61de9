"""The teacher's view of the class's practice (classroom/practice.py): per step, how many
answered, how many are right and the mistakes by name with their counts, refreshed every POLL_S;
and, on a press, one student's wrong result, anonymous, projected beside the right one (the trace
of the settings it was sent for: the room's, as the student followed them). Nothing here names a
student: the store holds a hash of each browser's random id, and this shows only counts."""

import numpy as np
import streamlit as st

import core
from classroom.practice import LAYER, OUTCOMES, Practice
from classroom.rooms import RoomError
from classroom.store import StoreError
from core.practice import expected
from ui.figures.heatmaps import heatmap
from ui.figures.place import grid
from ui.kit.escape import markdown_text
from ui.kit.i18n import t
from ui.kit.number_text import indices
from ui.room.connection import POLL_S, fragment_guarded, rooms
from ui.work.traces import TraceKey, sentence_trace

PROJECTED = "_practice_projected"  # what this teacher's tab projects: a step's wrong result, kept


def practice() -> Practice:
    return Practice(rooms())


def mistakes_line(counts) -> str:
    """The outcomes that are not right, by name (in the teacher's language), most first."""
    wrong = [o for o in OUTCOMES if o != "right" and counts[o]]
    wrong.sort(key=lambda o: -counts[o])  # (a stable sort: ties in OUTCOMES' order)
    names = [t("room.practice_count", name=t(f"room.practice_outcome_{o}"), n=counts[o])
             for o in wrong]  # fmt: skip
    return t("room.practice_mistakes", list=t("room.practice_sep").join(names)) if names else ""


@st.fragment(run_every=POLL_S)
@fragment_guarded(notice=False)  # the band's other fragment says the store is down
def show(code: str, settings) -> None:
    """Every second: each step's counts, its Project button, and what this tab projects."""
    summary = practice().summary(code)
    projected = st.session_state.get(PROJECTED)
    if not summary and not projected:
        return  # no practice in this room yet: nothing on the teacher's band
    st.markdown(f"**{t('room.practice_title')}**")
    if not summary:
        st.caption(t("room.practice_none_yet"))
    for step, counts in summary.items():
        line, press = st.columns([5, 1.6], vertical_alignment="center")
        n = sum(counts.values())
        line.markdown(t("room.practice_step", step=markdown_text(step), n=n, right=counts["right"]))
        if n > counts["right"]:
            line.caption(mistakes_line(counts))
            press.button(t("room.practice_project"), key=f"practice_project_{step}",
                         help=t("room.practice_project_help"), on_click=_project,
                         args=(code, step))  # fmt: skip
    if projected:
        project(projected, settings)
    st.button(t("room.practice_clear"), key="practice_clear", type="tertiary",
              help=t("room.practice_clear_help"), on_click=_clear, args=(code,))  # fmt: skip


def _project(code: str, step: str) -> None:
    """Kept as found now: a later answer does not change what is on the screen."""
    found = _quietly(lambda: practice().to_project(code, step))
    projected = {"step": step} | ({"outcome": found[0], **found[1]} if found else {})
    st.session_state[PROJECTED] = projected


def _clear(code: str) -> None:
    _quietly(lambda: practice().clear(code, st.session_state["room_key"]))
    st.session_state.pop(PROJECTED, None)


def _hide() -> None:
    st.session_state.pop(PROJECTED, None)


def _quietly(work):
    """A press's store call; a store down meanwhile does nothing (the band says it)."""
    try:
        return work()
    except (StoreError, RoomError):
        return None


def project(projected: dict, settings) -> None:
    """One wrong result beside the right one, on one colour range (or, when none is kept, why)."""
    step = projected["step"]
    if "value" not in projected:
        st.info(t("room.practice_nothing_to_project", step=markdown_text(step)))
    else:
        layer, head = projected["layer"], int(projected["layer"].get("head") or 0)
        try:
            data = sentence_trace(TraceKey(**{name: layer[name] for name in LAYER}))
        except (core.InputError, KeyError, TypeError):
            st.info(t("room.practice_nothing_to_project", step=markdown_text(step)))
            data = None
        if data is not None:
            mistake = t(f"room.practice_outcome_{projected['outcome']}")
            st.caption(t("room.practice_projected", step=markdown_text(step),
                         head=head + settings.base, mistake=mistake))  # fmt: skip
            wrong = as_matrix(projected["value"])
            right = as_matrix(expected(step, data.trace, head))
            titles = (t("room.practice_wrong_title", step=step, mistake=mistake),
                      t("room.practice_right_title", step=step))  # fmt: skip
            bound = top(wrong, right)
            figures = [
                (figure(M, title, step, list(data.tokens), bound, settings), f"practice_{side}")
                for M, title, side in zip((wrong, right), titles, ("wrong", "right"))
            ]
            grid(figures, per_row=2)
    st.button(t("room.practice_hide"), key="practice_hide", on_click=_hide)


def as_matrix(value) -> np.ndarray:
    M = np.asarray(value, dtype=float)
    return M.reshape(1, -1) if M.ndim < 2 else M


def top(*matrices) -> float:
    """One colour range for both: the largest finite |value| (1 when there is none)."""
    finite = [np.abs(M[np.isfinite(M)]) for M in matrices]
    return float(max([f.max() for f in finite if f.size] or [1.0])) or 1.0


def figure(M, title: str, step: str, tokens: list, bound: float, settings):
    """A heatmap of ``M``: rows and columns by token where they have the sentence's length,
    else by index; −∞ drawn as the masked cells it is."""
    n, base = len(tokens), settings.base
    rows = tokens if M.shape[0] == n else indices(M.shape[0], base)
    columns = tokens if M.shape[1] == n else indices(M.shape[1], base)
    forbidden = np.isneginf(M)
    return heatmap(
        np.where(forbidden, 0.0, M), rows, columns, title=title, decimals=settings.decimals,
        scale="unit" if step == "A" else "signed", bound=bound,
        forbidden=forbidden if forbidden.any() else None,
    )  # fmt: skip
