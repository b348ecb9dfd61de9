"""The tasks the tiny decoder learns, one row each in TASKS, with their batches and chance levels.

Every sequence is 2L + 1 tokens over ``symbols`` symbols (ids 0..symbols − 1) and one separator
(id ``symbols``):

    copy      x_0 .. x_{L−1}  SEP  x_0 .. x_{L−1}
    reverse   x_0 .. x_{L−1}  SEP  x_{L−1} .. x_0
    sort      x_0 .. x_{L−1}  SEP  the x sorted
    repeat    SEP  filler  x_0 .. x_{T−1}  x_0 .. x_{T−1}   (T distinct symbols, T from 4 to 8 per
              sequence, so that no fixed offset finds the earlier copy, only an induction head;
              the filler counts up in steps two tokens apart: f_t = f_{t−2} + 1, which a layer-1
              previous-token head learns to predict first)

The answer is the second part: every token of it that the first part determines. Chance is the
loss of guessing uniformly among the symbols, ln(symbols); with no memory of the first part no
guess does better, since every x_i is uniform.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from core.seeding import rng_for


@dataclass(frozen=True)
class Task:
    """One task and the settings it trains well with (bench/results/train_issue43.txt)."""

    name: str
    symbols: int  # ids 0..symbols − 1; the separator is id `symbols`
    length: int  # L: the longest part to remember; every sequence has n = 2L + 1 tokens
    make: Callable  # (rng, b, task, fixed) -> (tokens [b, n], answer [b, n − 1] bool)
    period: int | None  # in the probe, token i of the repeat is token i − period (None: no repeat);
    #                     repeat: also the longest x in training
    train_all: bool  # train on every prediction (True) or only on the answer's (False)
    d_model: int
    n_heads: int
    n_layers: int
    batch: int
    lr: float
    steps: int

    @property
    def vocab(self) -> int:
        return self.symbols + 1

    @property
    def n(self) -> int:
        return 2 * self.length + 1

    @property
    def chance(self) -> float:
        """Loss of a uniform guess among the symbols: ln(symbols)."""
        return math.log(self.symbols)

    @property
    def first_repeat(self) -> int:
        """The first query an induction score reads in the probe: the repeat's second token (its
        first, x_0, has the same answer; the score reads every token of the repeat but it)."""
        return self.n - self.period + 1


@dataclass(frozen=True, eq=False)
class Batch:
    tokens: np.ndarray  # [b, n] int64
    targets: np.ndarray  # [b, n − 1] bool: the predictions the loss trains on
    answer: np.ndarray  # [b, n − 1] bool: the answer's predictions (the scored ones)


def _symbols(rng, b: int, task: Task) -> np.ndarray:
    return rng.integers(0, task.symbols, (b, task.length))


def _separator(b: int, task: Task) -> np.ndarray:
    return np.full((b, 1), task.symbols, dtype=np.int64)


def _second_half(b: int, task: Task) -> np.ndarray:
    """bool [b, n − 1]: the predictions of the last L tokens."""
    answer = np.zeros((b, task.n - 1), bool)
    answer[:, task.length :] = True
    return answer


def _copy(rng, b: int, task: Task, fixed: bool) -> tuple[np.ndarray, np.ndarray]:
    x = _symbols(rng, b, task)
    return np.concatenate([x, _separator(b, task), x], axis=1), _second_half(b, task)


def _reverse(rng, b: int, task: Task, fixed: bool) -> tuple[np.ndarray, np.ndarray]:
    x = _symbols(rng, b, task)
    return np.concatenate([x, _separator(b, task), x[:, ::-1]], axis=1), _second_half(b, task)


def _sort(rng, b: int, task: Task, fixed: bool) -> tuple[np.ndarray, np.ndarray]:
    x = _symbols(rng, b, task)
    return np.concatenate([x, _separator(b, task), np.sort(x, axis=1)], axis=1), _second_half(
        b, task
    )


def _skip_count(rng, b: int, length: int, symbols: int) -> np.ndarray:
    """[b, length] tokens each one more (mod symbols) than the token two places before it, the
    first two random: predicting the next token needs the one before the current, so a
    previous-token head pays off from the first steps (the induction head is then built on it)."""
    run = np.empty((b, length + 2), np.int64)
    run[:, :2] = rng.integers(0, symbols, (b, 2))
    for t in range(2, length + 2):
        run[:, t] = (run[:, t - 2] + 1) % symbols
    return run[:, 2:]


def _repeat(rng, b: int, task: Task, fixed: bool) -> tuple[np.ndarray, np.ndarray]:
    """SEP, filler, x, x: x is T distinct symbols, T drawn per row from MIN_PERIOD..task.period
    (task.period when ``fixed``); the filler, 2(L − T) tokens of _skip_count, comes before x.
    The answer: the repeat's tokens after its first (the first cannot be told from the past)."""
    n = task.n
    periods = np.full(b, task.period) if fixed else rng.integers(MIN_PERIOD, task.period + 1, b)
    order = rng.permuted(np.tile(np.arange(task.symbols), (b, 1)), axis=1)  # [b, symbols]
    filler = _skip_count(rng, b, n - 1 - 2 * MIN_PERIOD, task.symbols)
    tokens = np.empty((b, n), np.int64)
    answer = np.zeros((b, n - 1), bool)
    tokens[:, 0] = task.symbols
    for row, T in enumerate(periods):
        x = order[row, :T]
        tokens[row, 1:] = np.concatenate([filler[row, : n - 1 - 2 * T], x, x])
        answer[row, n - T :] = True  # predictions of tokens n − T + 1 .. n − 1
    return tokens, answer


MIN_PERIOD = 4  # the repeat task's shortest x

TASKS = {
    task.name: task
    for task in (
        Task("copy", 16, 12, _copy, 13, False, 64, 4, 2, 32, 1e-2, 200),
        Task("reverse", 16, 12, _reverse, None, False, 64, 4, 2, 32, 1e-2, 200),
        Task("sort", 16, 12, _sort, None, False, 64, 4, 2, 32, 1e-2, 400),
        Task("repeat", 16, 12, _repeat, 8, True, 64, 4, 2, 32, 5e-3, 600),
    )
}


def make_batch(task: Task, seed: int, step: int, b: int) -> Batch:
    """The batch of training step ``step`` for run ``seed``: the same in every process."""
    rng = rng_for("tiny.batch", task.name, seed, step)
    tokens, answer = task.make(rng, b, task, False)
    return Batch(
        tokens.astype(np.int64), np.ones_like(answer) if task.train_all else answer, answer
    )


def probe(task: Task) -> Batch:
    """The fixed example whose attention maps a run shows (batch of one; repeat: T = period)."""
    tokens, answer = task.make(rng_for("tiny.probe", task.name), 1, task, True)
    return Batch(
        tokens.astype(np.int64), np.ones_like(answer) if task.train_all else answer, answer
    )
