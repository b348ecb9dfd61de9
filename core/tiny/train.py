"""Training the tiny decoder on a task, as a generator: one Progress per step, the attention maps
and head scores of a fixed probe sequence at snapshot steps, bit for bit the same for a seed.

Step s reports the loss of batch s under the parameters after s Adam steps; the last report
(step ``steps``, or the step at which ``stop()`` said True) is always a snapshot.

When did the induction head appear? Two rules, both read off a run's history:
- ``loss_drop_step``: the first step whose answer loss is below half of chance (every step has
  one, so this is exact to the step; the drop is sudden, so a noisy batch moves it little);
- ``head_step``: the first snapshot at which some head of the last layer has an induction score
  above 0.5 (attends mostly to the token after the earlier copy of the current one).
"""

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from core.tiny.adam import adam_init, adam_step
from core.tiny.backward import backward
from core.tiny.forward import forward
from core.tiny.model import init
from core.tiny.scores import induction_score, previous_token_score
from core.tiny.tasks import TASKS, Task, make_batch, probe

SNAPSHOT_EVERY = 25  # steps between two snapshots of the probe's attention maps
HEAD_THRESHOLD = 0.5  # an induction score above this: the head has formed


@dataclass(frozen=True, eq=False)
class Progress:
    """One training step; the snapshot fields are None between snapshots."""

    step: int  # Adam steps taken before this batch
    loss: float  # the batch's training loss (over its targets)
    answer_loss: float  # the batch's loss over the answer's predictions only
    seconds: float  # wall time since training started (the one field a seed does not fix)
    attention: np.ndarray | None = None  # [layers, heads, n, n]: A on the task's probe
    previous: np.ndarray | None = None  # [layers, heads]: previous-token scores on the probe
    induction: np.ndarray | None = None  # [layers, heads]; None when the task has no repeat
    params: dict | None = None  # the parameters at this step (a snapshot's own copy)


def init_for(task: Task, seed: int = 0) -> dict:
    """Fresh parameters of the task's default sizes."""
    return init(seed, task.vocab, task.n, task.d_model, task.n_heads, task.n_layers)


def snapshot(params: dict, task: Task, n_heads: int, scale: bool) -> dict:
    """The probe's attention maps [layers, heads, n, n] and each head's scores."""
    run = forward(params, probe(task).tokens, n_heads, scale)
    A = np.stack([layer.A[0] for layer in run.layers])  # [layers, heads, n, n]
    induction = None
    if task.period is not None:
        induction = induction_score(A, task.period, task.first_repeat)
    return {
        "attention": A,
        "previous": previous_token_score(A),
        "induction": induction,
        "params": {key: p.copy() for key, p in params.items()},
    }


def train(
    params: dict | None,
    task: Task | str,
    steps: int | None = None,
    *,
    n_heads: int | None = None,
    batch: int | None = None,
    lr: float | None = None,
    seed: int = 0,
    scale: bool = True,
    snapshot_every: int = SNAPSHOT_EVERY,
    snapshot_at: Iterable[int] = (),
    stop: Callable[[], bool] | None = None,
) -> Iterator[Progress]:
    """Train on ``task`` (a Task or a name in TASKS), yielding a Progress per step. Anything left
    None takes the task's default; params None: init_for(task, seed). The caller's params are
    never changed. ``stop()`` True ends the run after the step under way (with a snapshot)."""
    task = TASKS[task] if isinstance(task, str) else task
    params = init_for(task, seed) if params is None else params
    steps = task.steps if steps is None else steps
    n_heads = task.n_heads if n_heads is None else n_heads
    batch = task.batch if batch is None else batch
    lr = task.lr if lr is None else lr
    snapshots, state, start = set(snapshot_at), adam_init(params), time.perf_counter()
    for step in range(steps + 1):
        data = make_batch(task, seed, step, batch)
        run = forward(params, data.tokens, n_heads, scale, data.targets)
        last = step == steps or (stop is not None and stop())
        extra = {}
        if last or step in snapshots or (snapshot_every and step % snapshot_every == 0):
            extra = snapshot(params, task, n_heads, scale)
        seconds = time.perf_counter() - start
        yield Progress(step, run.loss, float(run.nll[data.answer].mean()), seconds, **extra)
        if last:
            return
        grads, _, _ = backward(params, run)
        params, state = adam_step(params, grads, state, lr)


def loss_drop_step(history: Iterable[Progress], chance: float) -> int | None:
    """The first step whose answer loss is below half of ``chance``; None if none is."""
    return next((p.step for p in history if p.answer_loss < chance / 2), None)


def head_step(history: Iterable[Progress], threshold: float = HEAD_THRESHOLD) -> int | None:
    """The first snapshot step at which a head of the last layer has an induction score above
    ``threshold``; None if none has (or the task has no induction scores)."""
    for p in history:
        if p.induction is not None and p.induction[-1].max() > threshold:
            return p.step
    return None
