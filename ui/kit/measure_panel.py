"""Measurements shared by the server (measure/queue.py) on a page: the cost page's Measure button
with its progress and whose result it is, and the loop page's table that arrives by itself."""

import time

import streamlit as st

from measure import cost
from measure.queue import QUEUE
from ui.kit.i18n import t
from ui.kit.session import anonymous_id

POLL_S = 0.5  # the bar moves twice a second (at 0.25, 24 learners waiting woke the server 96
# times a second)


def _who(learners: int) -> str:
    return t("cost.who", n=learners)


def _follow(measurement) -> None:
    """Show the shared measurement's progress until it ends (a rerun may leave earlier: the
    measurement goes on for the others)."""
    text = t("cost.joined", n=measurement.n or "…", who=_who(measurement.learners))
    bar = st.progress(0.0, text=text)  # words from the start: the top bar shows no "Running"
    note = st.empty()
    while not measurement.event.wait(POLL_S):
        ahead = QUEUE.queued_before(measurement)
        if ahead:
            note.caption(t("cost.queued", ahead=ahead))
        else:
            note.empty()
        text = t("cost.joined", n=measurement.n or "…", who=_who(measurement.learners))
        bar.progress(min(measurement.progress, 1.0), text=text)
    bar.empty()
    note.empty()


def _too_busy(fit: dict, key: tuple, args: dict) -> None:
    """A growth that the machine was too busy to measure: said so, never printed as a figure,
    with a button that measures again (measure/cost.py's fitted_growth says when)."""
    st.warning(
        t(
            "cost.fit_busy",
            low=f"{min(fit['sweeps']):.2f}",
            high=f"{max(fit['sweeps']):.2f}",
        ),
        icon=":material/warning:",
    )
    if st.button(t("cost.measure_again"), key="co_measure_again"):
        st.session_state[key] = QUEUE.request(key, "cost", args, anonymous_id())
        st.rerun()


def measured(ns, d_model: int, n_heads: int) -> dict | None:
    """The button, then the result this session asked for or the server's fresh one, else None."""
    key = ("cost", d_model, n_heads, tuple(ns), cost.LOOP_MAX_N)
    args = {"ns": list(ns), "d_model": d_model, "n_heads": n_heads, "loop_max_n": cost.LOOP_MAX_N}
    if st.button(t("cost.measure"), key="co_measure", type="primary"):
        st.session_state[key] = QUEUE.request(key, "cost", args, anonymous_id())
    measurement = st.session_state.get(key)
    if measurement is not None and measurement.state in ("queued", "running"):
        _follow(measurement)
    if measurement is None or measurement.state != "done":
        if measurement is not None and measurement.state == "failed":
            st.error(t("cost.failed", error=measurement.error), icon=":material/error:")
        measurement = QUEUE.latest(key)  # measured by another learner, still fresh
    if measurement is None:
        return None
    if measurement.result.get("busy"):
        _too_busy(measurement.result["fit"], key, args)
    ago = QUEUE.clock() - measurement.finished_at
    st.caption(
        t(
            "cost.measured_at",
            clock=time.strftime("%H:%M:%S", time.localtime(measurement.finished_at)),
            ago=t("cost.ago_s", s=int(ago)) if ago < 60 else t("cost.ago_min", m=int(ago // 60)),
            d_model=d_model,
            heads=n_heads,
            who=_who(measurement.learners),
        )
    )
    return measurement.result


def arriving(key: tuple, job: str, args: dict, show) -> None:
    """``show(result)`` of a measurement this page asks for by itself and keeps as long as the
    server runs. Until it is done the page finishes without it, and a fragment looks again every
    second, then reruns the page once to draw it."""
    measurement = QUEUE.request(key, job, args, anonymous_id(), fresh_s=float("inf"))
    if measurement.state == "done":
        show(measurement.result)
        return

    @st.fragment(run_every=1.0)
    def waiting():
        if measurement.state == "done":
            st.rerun()
        elif measurement.state == "failed":
            st.error(t("cost.failed", error=measurement.error), icon=":material/error:")
        else:
            st.caption(t("loop_vs_matrix.measuring_here"))

    waiting()
