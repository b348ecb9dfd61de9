"""/train's notebook: the tiny decoder trained on the page's task, sizes and seed, with the app's
own code (core/tiny's modules, carried as they are, their imports of each other removed: one
namespace), and the loss curve printed and saved; the same seed gives the same curve bit for bit.
NumPy alone."""

import ast
import importlib
import inspect

from core import heads, seeding
from ui.kit.i18n import t
from ui.notebooks import cells
from ui.notebooks.cells import say

FILE = "train.ipynb"
# core/tiny's modules, each after what it uses (by name: core.tiny's functions hide some)
MODULES = tuple(
    importlib.import_module(f"core.tiny.{name}")
    for name in ("model", "forward", "backward", "adam", "tasks", "scores", "train")
)
CORE = '''import hashlib
import math
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, fields

import numpy as np

xp = np


def array_namespace(*arrays):
    return np


class InputError(ValueError):
    """Input the learner can fix (the app says it in the learner's language)."""

    def __init__(self, code, **params):
        super().__init__(f"{code}: {params}")


def check_positive(name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise InputError("non_positive", name=name, value=value)
    return value


'''
RUN = """task = TASKS[{task!r}]
params = init({seed}, task.vocab, task.n, {d_model}, {n_heads}, {n_layers})
history = []
for p in train(params, task, {steps}, n_heads={n_heads}, seed={seed}, scale={scale}):
    history.append(p)
    if p.step % 25 == 0 or p.step == {steps}:
        print({step})
loss = np.array([p.loss for p in history])
answer_loss = np.array([p.answer_loss for p in history])
attention = history[-1].attention  # [layers, heads, n, n]: the probe's maps after training
print({chance})
drop = loss_drop_step(history, task.chance)
print({drop} if drop is not None else {no_drop})"""


def without_core_imports(module) -> str:
    """The module's source less its imports from core (one namespace in the notebook)."""
    text = inspect.getsource(module)
    lines = text.splitlines()
    for node in reversed(ast.parse(text).body):
        if isinstance(node, ast.ImportFrom | ast.Import):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [a.name for a in node.names]
            )
            if any(name == "core" or name.startswith("core.") for name in names):
                del lines[node.lineno - 1 : node.end_lineno]
    return "\n".join(lines)


def build(settings, lang: str) -> bytes:
    """The notebook of a /train run's ``settings`` (scheduling/training.py's Settings)."""
    about = {**settings.__dict__, "task": t(f"train.task_{settings.task}", lang)}
    helpers = (
        CORE + cells.source(seeding.rng_for, heads.split_heads, heads.merge_heads) + cells.softmax()
    )
    labels = {
        "step": cells.printed("print_step", lang, step="p.step", loss="p.loss:.4f",
                              answer="p.answer_loss:.4f"),
        "chance": cells.printed("print_chance", lang, chance="task.chance:.4f"),
        "drop": cells.printed("print_drop", lang, drop="drop"),
        "no_drop": cells.printed("print_no_drop", lang),
    }  # fmt: skip
    code = []
    for module in MODULES:
        name = module.__name__.replace(".", "/") + ".py"
        code += [cells.markdown(f"`{name}`"), cells.code(without_core_imports(module))]
    return cells.written([
        cells.markdown(say("train_title", lang, **about)),
        cells.code(helpers),
        cells.markdown(say("train_code", lang)),
        *code,
        cells.markdown(say("train_run", lang)),
        cells.code(RUN.format(**settings.__dict__, **labels)),
        *cells.saved(("loss", "answer_loss", "attention"), lang),
    ])  # fmt: skip
