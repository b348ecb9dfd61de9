"""The train page: Train pressed on repeat, the run trained by the server's child process, and
every figure the page prints read back against this test's own computation (core.tiny.train run
here, the step of the drop and the induction scores found by loops written here, the opened-up
backward pass against torch autograd); bad sizes said in both languages with the settings kept."""

import math
import re

import numpy as np
import pytest

from core import tiny
from core.threads import on_one_core
from tests.support.app import charts, grids, has_chart, page_text, room_opened, run_app, run_until
from tests.support.tiny_torch import torch_forward

TASK = tiny.TASKS["repeat"]


@pytest.fixture(scope="module")
def trained():
    """The page after Train on the defaults, once the run has played to its end."""
    at = run_app("train", lang="en")
    at.button(key="tr_train").click().run()
    return run_until(at, has_chart("Every head at step"), timeout=240)


@pytest.fixture(scope="module")
def history():
    """The same run in this process: (step, answer loss, last layer's induction by a loop)."""
    params = tiny.init(0, TASK.vocab, TASK.n, TASK.d_model, TASK.n_heads, TASK.n_layers)
    probe = tiny.probe(TASK).tokens[0]
    rows, heads = [], {}
    with on_one_core():  # as the server's child trains: BLAS's sums in the same order
        progress = list(tiny.train(params, TASK, TASK.steps, n_heads=TASK.n_heads))
    for p in progress:
        rows.append((p.step, p.answer_loss))
        if p.attention is not None:
            A, T = p.attention[-1], TASK.period  # [heads, n, n]; the probe repeats after T
            queries = range(TASK.first_repeat, TASK.n)  # the second copy after its first token
            assert all(probe[i] == probe[i - T] for i in queries)
            heads[p.step] = [np.mean([A[h, i, i - T + 1] for i in queries]) for h in range(len(A))]
    return rows, heads


def test_the_drop_and_the_head_are_the_tests_own(trained, history):
    rows, heads = history
    chance = math.log(TASK.symbols)
    drop = next(step for step, loss in rows if loss < chance / 2)
    head = next(step for step, scores in heads.items() if max(scores) > 0.5)
    text = page_text(trained)
    said = re.search(r"At step (\d+)\*\* the answer's loss fell below half of chance \(([\d.]+)",
                     text)  # fmt: skip
    assert said and int(said.group(1)) == drop and float(said.group(2)) == round(chance / 2, 2)
    said = re.search(r"snapshot of step (\d+)\) a head of layer 2 .*induction score: ([\d.]+)",
                     text)  # fmt: skip
    assert said and int(said.group(1)) == head
    assert float(said.group(2)) == pytest.approx(max(heads[head]), abs=0.006)
    assert drop - 50 <= head <= drop + 50  # the loss falls when the head forms


def test_the_slider_shows_each_snapshot_and_the_last_by_default(trained, history):
    _, heads = history
    slider = next(s for s in trained.select_slider if s.key == "tr_snapshot")
    assert list(slider.options) == [str(step) for step in heads]
    assert slider.value == TASK.steps


def test_the_backward_row_is_torchs_gradient(trained):
    """The opened-up backward pass's row of dS, and its a, against torch autograd at step 0."""
    params = tiny.init(0, TASK.vocab, TASK.n, TASK.d_model, TASK.n_heads, TASK.n_layers)
    probe = tiny.probe(TASK)
    _, _, kept = torch_forward(params, probe.tokens, TASK.n_heads, True, probe.targets)
    dS = kept[-1]["S"].grad.numpy()[0, 0]  # the last layer, head 1 (the page's default)
    A = kept[-1]["A"].detach().numpy()[0, 0]
    row = int(np.argmax(np.abs(dS).sum(axis=-1)))
    assert f"query {row + 1}, through the softmax" in page_text(trained)
    table = next(d for d in grids(trained) if "dSᵢⱼ" in d.columns)
    assert len(table) == 8
    for _, cells in table.iterrows():
        j = int(cells.iloc[0]) - 1
        assert float(cells["aᵢⱼ"]) == pytest.approx(A[row, j], abs=6e-5)
        assert _value(cells["dSᵢⱼ"]) == pytest.approx(dS[row, j], rel=6e-3)
    assert np.sort(np.abs(dS[row]))[-8:].min() == pytest.approx(
        min(abs(_value(v)) for v in table["dSᵢⱼ"]), rel=6e-3
    )  # the row's eight largest


def _value(text: str) -> float:
    """A number as the page prints it: '−3.2 × 10⁻⁴', '−10⁻⁵' or '0.25'."""
    text = text.replace("−", "-").translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789"))
    power = re.fullmatch(r"(-?)([\d.]+ × )?10(-?\d+)", text)
    if power is None:
        return float(text)
    sign, mantissa, exponent = power.groups()
    factor = float(mantissa.removesuffix(" × ")) if mantissa else 1.0
    return (-1 if sign else 1) * factor * 10.0 ** int(exponent)


@pytest.mark.parametrize(
    ("lang", "query", "said"),
    [
        ("zh", {"tr_d_model": 40, "tr_heads": 3}, "d_model = 40 不能平均分给 3 个头"),
        ("en", {"tr_d_model": 40, "tr_heads": 3}, "d_model = 40 cannot be split evenly into 3"),
        ("zh", {"tr_d_model": 128, "tr_layers": 3, "tr_steps": 1000}, "训练量太大"),
        ("en", {"tr_d_model": 128, "tr_layers": 3, "tr_steps": 1000}, "too much training"),
    ],
)
def test_bad_sizes_are_said_and_kept(lang, query, said):
    at = run_app("train", lang=lang, **query)
    assert not at.exception
    assert any(said in e.value for e in at.error), [e.value for e in at.error]
    boxes = {box.key: box.value for box in at.number_input}
    for key, value in query.items():
        assert boxes[key] == value
    assert not [b for b in at.button if b.key == "tr_train"]  # nothing to train


def test_a_class_bets_on_the_step_the_induction_head_forms(history):
    """The teacher asks before training on the projector; the answer is the span of the step
    the test finds in its own run, the reveal says the step."""
    import ui.room.connection as room

    rows, _ = history
    drop = next(step for step, loss in rows if loss < math.log(TASK.symbols) / 2)
    _, code, key = room_opened()
    teacher = run_app("train", room=code, key=key, lang="en")
    assert teacher.selectbox(key="q_kind_train").value == "induction_step"
    teacher.button(key="room_ask").click().run()
    question = room.rooms().get(code)["question"]
    labels = [label for label, _ in question["choices"]]
    low, high = (int(x) for x in labels[question["answer"]].split("–"))
    assert low <= drop < high and labels == ["0–150", "150–300", "300–450", "450–600", ""]
    assert "Press Train" in page_text(teacher)  # the projector has not shown the run yet
    student = run_app(room=code, lang="zh")
    assert not student.exception
    assert "老师要在“重复”任务上把小模型训练 600 步" in page_text(student)
    teacher.button(key="room_reveal").click().run()
    said = page_text(teacher).replace("\\", "")  # markdown's escapes taken out
    assert f"fell below half of chance (1.39 nats) at step {drop}:" in said


def test_stop_stops_the_run_within_a_step_and_keeps_what_was_trained():
    from ui.work.model_turns import RUNS

    at = run_app("train", lang="zh", tr_task="copy", tr_steps=1000, tr_d_model=32, tr_seed=5)
    at.button(key="tr_train").click().run()
    run = next(r for r in RUNS._by_settings.values() if r.settings.seed == 5)
    while len(run.steps) < 20:
        run.event.wait(0.1)
    at.button(key="tr_stop").click().run()
    run.child.wait(timeout=5)
    assert run.state == "stopped" and len(run.steps) < 1000
    shown = re.search(r"已在第 (\d+) 步停止", page_text(at))
    assert shown and int(shown.group(1)) <= run.steps[-1][0]
    assert "训练中的损失" in " ".join(c["layout"]["title"]["text"] for c in charts(at))


def test_with_and_without_scaling_are_the_tests_own():
    """At step 0 the page's largest weight per row and mean |dS| through the softmax, against
    torch on the same one-head d_head = 128 model; both runs' last answer losses against the
    runs themselves."""
    from ui.work.model_turns import RUNS

    at = run_app("train", lang="en", tr_task="copy")
    at.button(key="tr_scale_go").click().run()
    at = run_until(at, has_chart("Loss of the answer, with and without"), timeout=240)
    table = next(d for d in grids(at) if "no scaling" in d.columns)
    task = tiny.TASKS["copy"]
    params = tiny.init(0, task.vocab, task.n, 128, 1, 1)
    probe = tiny.probe(task)
    for column, scale in (("÷√d_k", True), ("no scaling", False)):
        _, _, kept = torch_forward(params, probe.tokens, 1, scale, probe.targets)
        A, dS = kept[0]["A"].detach().numpy()[0, 0], kept[0]["S"].grad.numpy()[0, 0]
        assert float(table[column].iloc[0]) == pytest.approx(A.max(axis=-1).mean(), abs=6e-4)
        lower = dS[np.tril_indices(len(A))]
        assert _value(table[column].iloc[1]) == pytest.approx(np.abs(lower).mean(), rel=6e-3)
        run = next(r for s, r in RUNS._by_settings.items() if s.d_model == 128 and s.scale == scale)
        assert float(table[column].iloc[2]) == pytest.approx(run.steps[-1][2], abs=6e-4)
    assert float(table["no scaling"].iloc[0]) > float(table["÷√d_k"].iloc[0])  # more peaked
