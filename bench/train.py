"""core.tiny's training step against the same model in PyTorch on the CPU, side by side in one run,
then each task's default run.

One step = forward + backward + Adam, at b = 32, n = 32, d_model 64, 2 layers, 4 heads, vocabulary
17: core.tiny (NumPy, float64, backward written by hand) against torch (autograd, torch.optim.Adam)
in float64 (the same arithmetic) and float32. The implementations run in blocks of steps, the order
reversed each round (measure/timing.py), so that a busy machine slows them alike.
Target (issue 43): core.tiny at most 1.5 x torch float64's ms per step.

Then every task in core.tiny.TASKS with its defaults: wall time (and the process's CPU time, which
a machine busy with other work stretches less), final loss (mean of the last 20
steps' answer losses), chance, and for the tasks with a repeat the step at which the induction head
appeared (both rules of core/tiny/train.py) and the best last-layer induction score.

torch is a benchmark-only dependency: `pip install torch==2.13.0` (a CPU wheel).
Run: python bench/train.py [--quick] [--out bench/results/train_issue43.txt]
"""

import argparse
import contextlib
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core import threads, tiny  # noqa: E402
from measure.timing import time_side_by_side  # noqa: E402

B, N, D, HEADS, LAYERS, VOCAB = 32, 32, 64, 4, 2, 17


def numpy_step(tokens):
    """core.tiny's step, its parameters and Adam state carried between calls."""
    state = {"params": tiny.init(0, VOCAB, N, D, HEADS, LAYERS)}
    state["adam"] = tiny.adam_init(state["params"])

    def step():
        _, grads = tiny.loss_and_grads(state["params"], tokens, HEADS)
        state["params"], state["adam"] = tiny.adam_step(state["params"], grads, state["adam"])

    return step


def torch_loss(P, x, n_heads, causal):
    """The same decoder in torch: P maps core.tiny's keys to tensors; x [b, n] int64."""
    import torch

    b, n = x.shape
    h = P["E"][x] + P["P"][:n]
    d = h.shape[-1]
    for i in range(sum(1 for k in P if k.endswith(".W_Q"))):
        q, k, v = (
            (h @ P[f"layers.{i}.{w}"]).view(b, n, n_heads, -1).transpose(1, 2)
            for w in ("W_Q", "W_K", "W_V")
        )
        s = (q @ k.transpose(-1, -2)) / (d // n_heads) ** 0.5
        a = torch.softmax(s.masked_fill(~causal, float("-inf")), dim=-1)
        h = h + (a @ v).transpose(1, 2).reshape(b, n, d) @ P[f"layers.{i}.W_O"]
    logits = h @ P["W_U"]
    return torch.nn.functional.cross_entropy(
        logits[:, :-1].reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1)
    )


def torch_step(tokens, dtype):
    import torch

    params = tiny.init(0, VOCAB, N, D, HEADS, LAYERS)
    P = {k: torch.tensor(v, dtype=dtype, requires_grad=True) for k, v in params.items()}
    opt = torch.optim.Adam(P.values(), lr=tiny.adam.LR)
    x = torch.from_numpy(tokens)
    causal = torch.tril(torch.ones(N, N, dtype=torch.bool))

    def step():
        opt.zero_grad()
        torch_loss(P, x, HEADS, causal).backward()
        opt.step()

    return step


def step_speed(rounds: int, say, one_core: bool) -> None:
    """ms per step; ``one_core``: NumPy's BLAS and torch on one thread, timed on the calling
    thread's CPU clock (what a busy machine does not stretch), else every core, wall time."""
    import torch

    tokens = np.random.default_rng(0).integers(0, VOCAB, (B, N))
    impls = {
        "core.tiny f64": numpy_step(tokens),
        "torch f64": torch_step(tokens, torch.float64),
        "torch f32": torch_step(tokens, torch.float32),
    }
    threads_before = torch.get_num_threads()
    if one_core:
        torch.set_num_threads(1)
    how = "one core, CPU time of the thread" if one_core else f"{threads_before} threads, wall time"
    say(f"\none training step, b={B} n={N} d_model={D} layers={LAYERS} heads={HEADS} vocab={VOCAB}")
    say(f"torch {torch.__version__}; {how}")
    clock = time.thread_time if one_core else time.perf_counter
    with threads.on_one_core() if one_core else contextlib.nullcontext():
        t = time_side_by_side(impls, rounds=rounds, block=10, clock=clock)
    torch.set_num_threads(threads_before)
    for name, v in t.items():
        say(f"  {name:14s} best {v['best'] * 1e3:7.2f} ms   median {v['median'] * 1e3:7.2f} ms")
    for stat in ("best", "median"):
        ratio = t["core.tiny f64"][stat] / t["torch f64"][stat]
        verdict = "met" if ratio <= 1.5 else "MISSED"
        say(f"  core.tiny / torch f64 ({stat}): {ratio:.2f}x  (target <= 1.5x: {verdict})")


def task_runs(say) -> None:
    say("\neach task with its defaults (core.tiny.TASKS), seed 0")
    for task in tiny.TASKS.values():
        start, cpu = time.perf_counter(), time.process_time()
        history = list(tiny.train(None, task))
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        final = statistics.fmean(p.answer_loss for p in history[-20:])
        say(
            f"  {task.name:8s} {task.steps} steps, b={task.batch} d={task.d_model} "
            f"heads={task.n_heads} layers={task.n_layers} lr={task.lr}: {wall:5.1f} s wall "
            f"({cpu:.1f} s CPU), {wall / task.steps * 1e3:.1f} ms/step; answer loss {final:.3f}, "
            f"chance {task.chance:.3f}"
        )
        if task.period is not None:
            last = history[-1]
            say(
                f"           induction: loss below chance/2 at step "
                f"{tiny.loss_drop_step(history, task.chance)}, last-layer head score > 0.5 "
                f"at snapshot {tiny.head_step(history)}; final best score per layer "
                f"{np.round(last.induction.max(axis=1), 2).tolist()}, previous-token "
                f"{np.round(last.previous.max(axis=1), 2).tolist()}"
            )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer rounds, no task runs")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    lines = [f"load average before the run: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"]
    print(lines[0])

    def say(line: str) -> None:
        print(line, flush=True)
        lines.append(line)

    for one_core in (False, True):
        step_speed(3 if args.quick else 7, say, one_core)
    if not args.quick:
        task_runs(say)
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
