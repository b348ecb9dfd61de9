"""The run's curves: its loss against chance (live while it trains), the step at which the answer
came in and the induction head formed, and every head's scores over training."""

import numpy as np
import streamlit as st

from core import tiny
from ui.figures.lines import line_chart
from ui.figures.palette import LINE_COLOURS
from ui.figures.place import plot
from ui.kit.i18n import t
from ui.kit.number_text import num


def head_name(layer: int, head: int, base: int) -> str:
    """Counted from 0 in code, named as the sidebar numbers them (from ``base``)."""
    return t("train.head_name", layer=layer + base, head=head + base)


def moments(run, seconds: float) -> tuple[int | None, int | None]:
    """(the step the answer's loss fell below half of chance, the first snapshot at which a head
    of the last layer had an induction score above 0.5), in what was trained by ``seconds``."""
    return run.drop_step(seconds), tiny.head_step(run.history(seconds))


def loss_chart(run, rows, drop: int | None = None) -> None:
    """The loss chart, drawn."""
    plot(loss_figure(tiny.TASKS[run.settings.task], rows, drop), "tr_loss")


def loss_figure(task, rows, drop: int | None = None):
    """The loss of every trained prediction (dotted) and of the answer alone (solid), against
    chance (dashed): each line its own dash, as its markers are too small to tell them apart."""
    steps = [int(s) for s in rows[:, 0]]
    chance = [task.chance] * len(steps)
    series = {t("train.loss_answer"): rows[:, 2], t("train.chance_line"): chance}
    dashes = ["solid", "dash"]
    if task.train_all:  # the repeat trains on every prediction, its filler's too
        series, dashes = {t("train.loss_all"): rows[:, 1], **series}, ["dot", *dashes]
    marks = () if drop is None else ((drop, t("train.appeared")),)
    return line_chart(steps, series, title=t("train.loss_title"), x_title=t("train.x_step"),
                      y_title="", log=False, tick_every_x=False, dashes=dashes, marks=marks,
                      marker_size=2)  # fmt: skip


def when(run, seconds: float, base: int) -> None:
    """The loss chart and the sentence saying when the answer came in (and the head formed)."""
    task = tiny.TASKS[run.settings.task]
    rows, snapshots = run.until(seconds)
    drop, head = moments(run, seconds)
    loss_chart(run, rows, drop)
    half = num(task.chance / 2, 2)
    if drop is None:
        st.warning(t("train.when_never", steps=int(rows[-1, 0]), half=half), icon=":material/info:")
    elif task.period is None:
        end, chance = num(float(rows[-1, 2]), 2), num(task.chance, 2)
        st.success(t("train.when_other", loss=end, chance=chance), icon=":material/lightbulb:")
    elif head is None:
        st.info(t("train.when_no_head", drop=drop), icon=":material/info:")
    else:
        snap = next(s for s in snapshots if s["step"] == head)
        score = float(np.max(snap["induction"][-1]))
        layer = len(snap["induction"]) - 1 + base  # the last layer, as the page numbers it
        st.success(t("train.when", drop=drop, half=half, head=head, layer=layer,
                     score=num(score, 2)), icon=":material/lightbulb:")  # fmt: skip


def scores_chart(snapshots, base: int) -> None:
    """The first layer's previous-token scores and the last layer's induction scores, per head."""
    steps = [s["step"] for s in snapshots]
    previous = np.asarray([s["previous"] for s in snapshots])  # [snapshots, layers, heads]
    heads = range(previous.shape[2])
    series = {
        t("train.score_previous", head=head_name(0, j, base)): previous[:, 0, j] for j in heads
    }
    title = t("train.scores_chart_previous", first=base)
    if snapshots[0]["induction"] is not None:
        induction = np.asarray([s["induction"] for s in snapshots])
        last = induction.shape[1] - 1
        for j in heads:
            series[t("train.score_induction", head=head_name(last, j, base))] = induction[
                :, last, j
            ]
        title = t("train.scores_chart", first=base, last=last + base)
    colours = [LINE_COLOURS[j % len(LINE_COLOURS)] for j in heads] * 2  # head j: one colour,
    dashes = ["solid"] * len(heads) + ["dash"] * len(heads)  # solid previous, dashed induction
    chart = line_chart(steps, series, title=title, x_title="",
                       y_title="", log=False, tick_every_x=False, y_range=(0, 1),
                       colours=colours, dashes=dashes, marker_size=4)  # fmt: skip
    plot(chart, "tr_scores")
