"""Train and Stop: the run this session follows (scheduling/training.py: shared by every session
with the same settings, trained in the background), its place in the queue, its progress and
its loss while it trains. A run already trained by someone else plays back at the pace it
trained, so that a class watching the projector sees the same curve come down."""

import time

import streamlit as st

from scheduling.training import Run, Settings
from ui.kit.i18n import t
from ui.kit.number_text import num
from ui.kit.session import anonymous_id
from ui.views.train import curves
from ui.work.model_turns import RUNS

RUN, STARTED, STOPPED_AT = "tr_run", "tr_started", "tr_stopped_at"
POLL_S = 0.5


def _press(settings: Settings) -> None:
    st.session_state[RUN] = RUNS.request(settings, anonymous_id())
    st.session_state[STARTED] = time.monotonic()
    st.session_state.pop(STOPPED_AT, None)


def _stop() -> None:
    run = st.session_state.get(RUN)
    if run is not None:
        st.session_state[STOPPED_AT] = time.monotonic() - st.session_state[STARTED]
        RUNS.stop(run, anonymous_id())


def seconds_shown() -> float:
    """How far into the followed run this session has watched (frozen by Stop)."""
    stopped = st.session_state.get(STOPPED_AT)
    return stopped if stopped is not None else time.monotonic() - st.session_state[STARTED]


def _playing(run: Run) -> bool:
    if STOPPED_AT in st.session_state or run.state in ("failed", "stopped"):
        return False
    return run.active or seconds_shown() < (run.seconds or 0.0)


def followed(settings: Settings) -> tuple[Run, float] | None:
    """The buttons, then the run of these settings and how far into it to show, once it has
    finished playing (None while it plays: a fragment draws it live, then reruns the page)."""
    left, right = st.columns(2)
    left.button(t("train.train"), key="tr_train", type="primary", on_click=_press,
                args=(settings,), width="stretch", icon=":material/play_arrow:")  # fmt: skip
    run = st.session_state.get(RUN)
    if run is None or run.settings != settings:
        st.info(t("train.press_train"), icon=":material/model_training:")
        return None
    right.button(t("train.stop"), key="tr_stop", on_click=_stop, width="stretch",
                 disabled=not _playing(run), icon=":material/stop:")  # fmt: skip
    if run.state == "failed":
        st.error(t("train.failed", error=run.error), icon=":material/error:")
        return None
    if _playing(run):
        _live(run)
        return None
    if STOPPED_AT in st.session_state:
        rows, _ = run.until(seconds_shown())
        st.caption(t("train.stopped", step=int(rows[-1, 0]) if len(rows) else 0))
    return run, seconds_shown()


def _live(run: Run) -> None:
    @st.fragment(run_every=POLL_S)
    def watch():
        if not _playing(run):
            st.rerun()  # the whole page: the maps, the scores and the sentence
        ahead = RUNS.ahead(run)
        if ahead:
            st.progress(0.0, text=t("train.waiting", ahead=ahead))
            return
        rows, _ = run.until(seconds_shown())
        step = int(rows[-1, 0]) if len(rows) else 0
        loss = num(float(rows[-1, 1]), 3) if len(rows) else "…"
        total = run.settings.steps
        text = t("train.progress", step=step, steps=total, loss=loss)
        st.progress(min(step / total, 1.0), text=text)
        watching = RUNS.watching(run, anonymous_id(), time.monotonic())
        if watching > 1:
            st.caption(t("train.shared", n=watching))
        curves.loss_chart(run, rows)

    watch()
