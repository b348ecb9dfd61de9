"""With and without ÷√d_k at a large d_head: the same model and data trained twice (shared runs,
scheduling/training.py), their answer losses side by side, and at step 0 how peaked the softmax is
and how much gradient gets through it."""

import dataclasses
import math

import numpy as np
import streamlit as st

from core import tiny
from scheduling.training import Settings
from ui.figures.lines import line_chart
from ui.figures.place import plot
from ui.kit.i18n import t
from ui.kit.number_text import num, power_of_ten
from ui.kit.session import anonymous_id
from ui.kit.tables import table
from ui.shell.registry import script_path
from ui.work.model_turns import RUNS

D_HEAD, STEPS = 128, 300  # one head this wide, trained this long
PAIR = "tr_scale_runs"


def pair(settings: Settings) -> tuple[Settings, Settings]:
    """The two runs compared: the learner's task and seed, one layer of one head of D_HEAD."""
    wide = dataclasses.replace(settings, d_model=D_HEAD, n_heads=1, n_layers=1, steps=STEPS)
    return wide, dataclasses.replace(wide, scale=False)


def _press(settings: Settings) -> None:
    st.session_state[PAIR] = [RUNS.request(s, anonymous_id()) for s in pair(settings)]


@st.cache_data(max_entries=16, show_spinner=False)
def at_step_0(settings: Settings) -> tuple[float, float]:
    """(the mean over rows of a row's largest weight, the mean |dS| through the softmax) on the
    fixed sequence at step 0."""
    task = tiny.TASKS[settings.task]
    params = tiny.init(settings.seed, task.vocab, task.n, settings.d_model, 1, 1)
    probe = tiny.probe(task)
    trace = tiny.backward_trace(params, probe.tokens, 1, settings.scale, probe.targets)
    A, dS = trace.forward.layers[0].A[0, 0], trace.layers[0].dS[0]
    return float(A.max(axis=-1).mean()), float(np.abs(dS[np.tril_indices(len(A))]).mean())


def section(settings: Settings) -> None:
    scaled, unscaled = pair(settings)
    st.caption(t("train.scale_text", d_head=D_HEAD, root=num(math.sqrt(D_HEAD), 1)))
    st.button(t("train.scale_go", steps=STEPS), key="tr_scale_go", on_click=_press,
              args=(settings,), icon=":material/compare_arrows:")  # fmt: skip
    runs = st.session_state.get(PAIR)
    if not runs or runs[0].settings != scaled:
        return
    if any(run.active for run in runs):
        _waiting(runs)
        return
    names = (t("train.scaled"), t("train.unscaled"))
    series = {name: [row[2] for row in run.steps] for name, run in zip(names, runs, strict=True)}
    steps = [row[0] for row in runs[0].steps]
    plot(line_chart(steps, series, title=t("train.scale_chart"), x_title=t("train.x_step"),
                    y_title="", log=False, tick_every_x=False), "tr_scale")  # fmt: skip
    firsts = [at_step_0(s) for s in (scaled, unscaled)]
    table({
        t("train.scale_table_what"): [t("train.scale_largest"), t("train.scale_grad"),
                                      t("train.scale_final")],
        **{name: [num(first[0], 3), power_of_ten(first[1], 3), num(run.steps[-1][2], 3)]
           for name, first, run in zip(names, firsts, runs, strict=True)},
    })  # fmt: skip
    st.page_link(script_path("scaling"), label=t("train.scale_link"), icon=":material/expand:")


def _waiting(runs) -> None:
    @st.fragment(run_every=0.5)
    def watch():
        if not any(run.active for run in runs):
            st.rerun()
        done = sum(len(run.steps) for run in runs) / (2 * (STEPS + 1))
        st.progress(min(done, 1.0), text=t("train.progress", step=len(runs[0].steps) - 1,
                                            steps=STEPS, loss="…"))  # fmt: skip

    watch()
