"""core.tiny's tasks, head scores and training loop: batches built as documented, a seed giving the
same run bit for bit, and on the repeat task with its defaults a previous-token head in layer 1
and an induction head in layer 2."""

import math
import statistics

import numpy as np
import pytest

from core import tiny
from core.tiny.train import SNAPSHOT_EVERY


@pytest.mark.parametrize("name", list(tiny.TASKS))
def test_a_batch_is_what_its_task_says(name):
    task = tiny.TASKS[name]
    batch = tiny.make_batch(task, seed=3, step=7, b=16)
    L, n, sep = task.length, task.n, task.symbols
    assert batch.tokens.shape == (16, n) and batch.tokens.dtype == np.int64
    assert batch.answer.shape == batch.targets.shape == (16, n - 1)
    assert task.vocab == task.symbols + 1 and batch.tokens.max() <= sep
    assert task.chance == pytest.approx(math.log(task.symbols))
    for row, answer in zip(batch.tokens, batch.answer, strict=True):
        if name == "repeat":
            T = int(answer.sum()) + 1  # every token of the repeat but its first
            assert row[0] == sep and sep not in row[1:]
            np.testing.assert_array_equal(row[n - T :], row[n - 2 * T : n - T])
            assert len(set(row[n - T :])) == T  # distinct: each has one earlier copy in x
            assert answer[n - T :].all() and not answer[: n - T].any()
            filler = row[1 : n - 2 * T]
            np.testing.assert_array_equal(filler[2:], (filler[:-2] + 1) % task.symbols)
            continue
        first, second = row[:L], row[L + 1 :]
        assert row[L] == sep
        expected = {"copy": first, "reverse": first[::-1], "sort": np.sort(first)}[name]
        np.testing.assert_array_equal(second, expected)
        assert answer[L:].all() and not answer[:L].any()
    np.testing.assert_array_equal(batch.targets, True if task.train_all else batch.answer)


def test_batches_are_fixed_by_seed_and_step():
    task = tiny.TASKS["repeat"]
    a = tiny.make_batch(task, 1, 5, 8)
    np.testing.assert_array_equal(a.tokens, tiny.make_batch(task, 1, 5, 8).tokens)
    assert not np.array_equal(a.tokens, tiny.make_batch(task, 1, 6, 8).tokens)
    assert not np.array_equal(a.tokens, tiny.make_batch(task, 2, 5, 8).tokens)
    periods = set(tiny.make_batch(task, 0, 0, 64).answer.sum(axis=1) + 1)
    assert periods == set(range(4, task.period + 1))  # the period changes from row to row
    probe = tiny.probe(task).tokens[0]
    T, n = task.period, task.n
    np.testing.assert_array_equal(probe[n - T :], probe[n - 2 * T : n - T])
    assert task.first_repeat == n - T + 1


def test_scores_read_the_pattern_they_name():
    n = 9
    previous = np.zeros((n, n))
    previous[0, 0] = 1.0
    previous[np.arange(1, n), np.arange(n - 1)] = 1.0
    uniform = np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]
    assert tiny.previous_token_score(previous) == 1.0
    expected = statistics.fmean(1 / (i + 1) for i in range(1, n))
    assert tiny.previous_token_score(uniform) == pytest.approx(expected)
    period, first = 4, 5  # SEP x0 x1 x2 x3 x0 x1 x2 x3
    induction = np.zeros((n, n))
    induction[np.arange(n), np.arange(n)] = 1.0
    for i in range(first, n):
        induction[i] = 0.0
        induction[i, i - period + 1] = 1.0
    assert tiny.induction_score(induction, period, first) == 1.0
    assert tiny.induction_score(previous, period, first) == 0.0
    stacked = np.stack([previous, induction])[None]  # [layers, heads, n, n]
    np.testing.assert_array_equal(tiny.induction_score(stacked, period, first), [[0.0, 1.0]])


def _run(**kwargs):
    return list(tiny.train(None, "repeat", **kwargs))


def test_a_seed_gives_the_same_run_bit_for_bit():
    a, b = _run(steps=30, seed=4), _run(steps=30, seed=4)
    assert [p.loss for p in a] == [p.loss for p in b]
    assert [p.answer_loss for p in a] == [p.answer_loss for p in b]
    for p, q in zip(a, b, strict=True):
        assert (p.attention is None) == (q.attention is None)
        if p.attention is not None:
            np.testing.assert_array_equal(p.attention, q.attention)
            assert all(np.array_equal(p.params[k], q.params[k]) for k in p.params)
    assert [p.loss for p in _run(steps=30, seed=5)] != [p.loss for p in a]


def test_steps_and_snapshots():
    task = tiny.TASKS["repeat"]
    params = tiny.init_for(task, 0)
    before = {k: v.copy() for k, v in params.items()}
    history = list(tiny.train(params, task, steps=30, snapshot_at=(3,)))
    assert [p.step for p in history] == list(range(31))
    snaps = [p.step for p in history if p.attention is not None]
    assert snaps == sorted({0, 3, *range(0, 31, SNAPSHOT_EVERY), 30})
    assert all(np.array_equal(params[k], before[k]) for k in params)  # the caller's are untouched
    first, last = history[0], history[-1]
    assert all(np.array_equal(first.params[k], params[k]) for k in params)
    L, H, n = task.n_layers, task.n_heads, task.n
    assert last.attention.shape == (L, H, n, n)
    assert last.previous.shape == last.induction.shape == (L, H)
    np.testing.assert_allclose(last.attention.sum(axis=-1), 1.0, rtol=1e-12)
    assert history[0].loss == pytest.approx(
        tiny.forward(params, tiny.make_batch(task, 0, 0, task.batch).tokens, H).loss, rel=1e-14
    )
    assert tiny.train(None, "reverse", steps=2).__next__().induction is None


def test_stop_ends_the_run_within_a_step():
    calls = []

    def stop():
        calls.append(1)
        return len(calls) > 5

    history = list(tiny.train(None, "copy", steps=100, stop=stop))
    assert [p.step for p in history] == list(range(6))
    assert history[-1].attention is not None  # the last report is a snapshot


def test_the_repeat_task_grows_an_induction_head():
    task = tiny.TASKS["repeat"]
    history = list(tiny.train(None, task))
    final = statistics.fmean(p.answer_loss for p in history[-20:])
    assert final < task.chance / 4
    last = history[-1]
    assert last.previous[0].max() > 0.5  # layer 1: a previous-token head
    assert last.induction[1].max() > 0.5  # layer 2: an induction head
    drop = tiny.loss_drop_step(history, task.chance)
    assert drop is not None and 0 < drop < task.steps
    early = statistics.fmean(p.answer_loss for p in history[:20])
    assert early > 0.9 * task.chance  # before it, no better than chance
    head = tiny.head_step(history)
    assert head is not None and head <= task.steps
