"""Questions about the numbers on screen, with their answer: one source for a teacher asking the
class and for a learner who predicts before looking.

A question is data: its kind, the parameters its prompt shows, the choices (a literal label, or
a string key the UI translates), the right choice, the worked numbers for the reveal and one line
of why (a string key and its parameters, translated by the UI).
"""

import math
from dataclasses import dataclass, field

import numpy as np

from core.lessons.number_text import num, printed_sum, sub

KINDS = (
    "shape",
    "dot_cell",
    "score_cell",
    "top_key",
    "masked_cells",
    "row_sum",
    "output_cell",
    "next_token",
    "first_layer",
    "induction_step",
)
STEP_KINDS = {  # what can be asked at each walkthrough step, about the step's own result first:
    "qkv": ("shape",),  # Q, K, V
    "scores": ("dot_cell", "shape"),  # a cell of S = QKᵀ (not yet ÷ √d_k)
    "scaled": ("score_cell", "shape"),  # a cell of S / √d_k
    "mask": ("masked_cells", "shape"),  # which cells become −∞
    "softmax": ("row_sum", "top_key", "masked_cells", "shape"),  # a row of A
    "av": ("output_cell", "top_key", "shape"),  # a cell of O = AV
    "heads": ("shape",),  # concat · W_O
}
PAGE_KINDS = {  # what other pages can ask: the model's next token, the layer that first knows it,
    # the step at which the tiny model's induction head forms
    "generate": ("next_token",),
    "inside": ("first_layer",),
    "train": ("induction_step",),
}


@dataclass(frozen=True)
class Question:
    kind: str
    params: dict  # what the prompt shows (numbers as text)
    choices: tuple  # (label, key): key names a translated string, else label is shown as is
    answer: int  # index of the right choice
    worked: tuple = field(default=())  # lines of arithmetic shown with the answer
    why: tuple = field(default=())  # (string key, its parameters): one line saying why


def _fmt(x: float) -> str:
    return num(x, 2)


def _vector(v) -> str:
    return "[" + ", ".join(_fmt(x) for x in v) + "]"


def _shuffled(right, wrong, rng) -> tuple[tuple, int]:
    """The right choice among distinct wrong ones, in a random order; (choices, its index)."""
    choices = [right] + [w for i, w in enumerate(wrong) if w != right and w not in wrong[:i]]
    order = rng.permutation(len(choices))
    shuffled = tuple(choices[k] for k in order)
    return shuffled, int(np.flatnonzero(order == 0)[0])


def _shape_question(step, n, d_k, d_v, d_model, h, rng) -> Question:
    shapes = {
        "qkv": (n, d_k),
        "scores": (n, n),
        "scaled": (n, n),
        "mask": (n, n),
        "softmax": (n, n),
        "av": (n, d_v),
        "heads": (n, d_model),
    }
    text = {k: f"{a} × {b}" for k, (a, b) in shapes.items()}
    wrong = [f"{d_k} × {n}", f"{n} × {n}", f"{n} × {d_model}", f"{n} × {h * d_v}", f"{n} × {d_k}"]
    choices, answer = _shuffled(text[step], wrong, rng)
    sizes = {"n": n, "d_k": d_k, "d_v": d_v, "d_model": d_model, "h": h, "hd_v": h * d_v}
    why = (f"room.why_shape_{step}", sizes)
    return Question("shape", {"step": step}, tuple((c, None) for c in choices), answer, (), why)


def _score_question(trace, head, i, j, rng, base=0, scaled=True) -> Question:
    """A cell of S / √d_k (``scaled``), or of S = QKᵀ itself (kind dot_cell)."""
    q, k = trace["Q"][head, i], trace["K"][head, j]
    d_k = q.shape[0]
    dot = float(q @ k)
    if scaled:
        right = dot / math.sqrt(d_k)
        wrong = [dot, float(q @ trace["K"][head, i]) / math.sqrt(d_k), -right, dot / d_k]
    else:
        right = dot
        wrong = [dot / math.sqrt(d_k), float(q @ trace["K"][head, i]), -dot, float(q @ q)]
    labels = [_fmt(x) for x in [right, *wrong]]
    choices, answer = _shuffled(labels[0], labels[1:], rng)
    products = " + ".join(f"{_fmt(a)}·{_fmt(b)}" for a, b in zip(q, k))
    qi, kj = f"q{sub(i + base)}", f"k{sub(j + base)}"
    worked = (
        f"{qi} = {_vector(q)},  {kj} = {_vector(k)}",
        f"{qi} · {kj} = {products} = {_fmt(dot)}",
        *([f"{_fmt(dot)} ÷ √{d_k} = {_fmt(right)}"] if scaled else []),
    )
    params = {"i": i + base, "j": j + base, "si": sub(i + base), "sj": sub(j + base),
              "q": _vector(q), "k": _vector(k), "d_k": d_k}  # fmt: skip
    kind = "score_cell" if scaled else "dot_cell"
    why = (f"room.why_{kind}", params)
    return Question(kind, params, tuple((c, None) for c in choices), answer, worked, why)


def _output_question(trace, head, i, c, rng, base=0) -> Question:
    """A cell of O = AV: oᵢ[c] = Σⱼ aᵢⱼ vⱼ[c], from row i of A and column c of V."""
    a, v = trace["A"][head, i], trace["V"][head][:, c]
    right = float(a @ v)
    uniform = float(v.mean())  # every key weighted alike
    copied = float(v[int(np.argmax(a))])  # the heaviest key's value alone
    choices, answer = _shuffled(_fmt(right), [_fmt(x) for x in (uniform, copied, -right)], rng)
    products = " + ".join(f"{_fmt(x)}·{_fmt(y)}" for x, y in zip(a, v))
    o = f"o{sub(i + base)}[{c + base}]"
    worked = (f"{o} = {products} = {_fmt(right)}",)
    params = {"i": i + base, "c": c + base, "si": sub(i + base), "a": _vector(a), "v": _vector(v)}
    why = ("room.why_output_cell", params)
    return Question("output_cell", params, tuple((x, None) for x in choices), answer, worked, why)


def _top_key_question(trace, tokens, head, i, allowed, base=0) -> Question:
    A = trace["A"][head, i]
    keys = [j for j in range(len(tokens)) if allowed[i, j]]
    best = max(keys, key=lambda j: A[j])
    shown = sorted(sorted(keys, key=lambda j: -A[j])[:5])  # the best and up to four more
    choices = tuple((f"{j + base} · {tokens[j]}", None) for j in shown)
    worked = tuple(f"a{sub(i + base, j + base)} = {A[j]:.4f}" for j in shown)
    params = {"i": i + base, "token": tokens[i]}
    heaviest = {"j": best + base, "word": tokens[best], "w": f"{A[best]:.4f}"}
    why = ("room.why_top_key", {"i": i + base, "sij": sub(i + base, best + base), **heaviest})
    return Question("top_key", params, choices, shown.index(best), worked, why)


def _masked_question(causal: bool, rng) -> Question:
    keys = ("room.q_mask_above", "room.q_mask_below", "room.q_mask_diagonal", "room.q_mask_none")
    order = rng.permutation(len(keys))
    choices = tuple((None, keys[k]) for k in order)
    right = 0 if causal else 3
    why = ("room.why_masked_causal" if causal else "room.why_masked_none", {})
    return Question("masked_cells", {}, choices, int(np.flatnonzero(order == right)[0]), (), why)


def _row_sum_question(trace, head, i, n, rng, base=0) -> Question:
    row = trace["A"][head, i]
    total = float(row.sum())
    right = "1" if total > 0.5 else "0"
    labels = (right, *[w for w in ("1", "0", str(n)) if w != right])
    order = rng.permutation(len(labels) + 1)
    options = [(label, None) for label in labels] + [(None, "room.q_sum_depends")]
    choices = tuple(options[k] for k in order)
    parts, added = printed_sum(row, 4)  # the sum of the parts as printed, then the true one
    exact = "" if added == num(total, 4) else f" ≈ {num(total, 4)}"  # where rounding parts
    worked = (" + ".join(parts) + f" = {added}{exact}",)  # moved it: 0.9999 ≈ 1.0000
    why = ("room.why_row_sum" if right == "1" else "room.why_row_sum_empty", {"i": i + base})
    answer = int(np.flatnonzero(order == 0)[0])
    return Question("row_sum", {"i": i + base}, choices, answer, worked, why)


def make_question(kind, step, trace, tokens, head, focus, allowed=None, seed=0, base=0) -> Question:
    """A question of ``kind`` about the numbers of ``trace`` (a dict of host arrays with Q, K, A,
    each [h, n, .]) at a walkthrough ``step``, for ``head`` and the ``focus`` row.

    ``allowed`` [n, n] is the mask (None: every key); ``seed`` varies the cell and the order;
    rows and keys are numbered from ``base`` (0, or 1 as in the tutorials)."""
    rng = np.random.default_rng(seed)
    n = len(tokens)
    allowed = np.ones((n, n), bool) if allowed is None else np.asarray(allowed, bool)
    h, _, d_k = trace["Q"].shape
    d_v = trace["V"].shape[-1]
    d_model = trace["output"].shape[-1]
    if kind == "shape":
        return _shape_question(step, n, d_k, d_v, d_model, h, rng)
    if kind in ("score_cell", "dot_cell"):
        j = int(rng.integers(n))
        return _score_question(trace, head, focus, j, rng, base, scaled=kind == "score_cell")
    if kind == "output_cell":
        c = int(rng.integers(d_v))
        return _output_question(trace, head, focus, c, rng, base)
    if kind == "top_key":
        return _top_key_question(trace, tokens, head, focus, allowed, base)
    if kind == "masked_cells":
        causal = bool(np.array_equal(allowed, np.tril(np.ones((n, n), bool)))) and n > 1
        return _masked_question(causal, rng)
    if kind == "row_sum":
        return _row_sum_question(trace, head, focus, n, rng, base)
    raise ValueError(f"unknown question kind {kind!r}; choose from {KINDS}")


def next_token_question(candidates, probabilities, text: str, seed: int = 0) -> Question:
    """Which of the model's ``candidates`` (its most likely next tokens, most likely first) comes
    next after ``text``; the reveal lists the model's own ``probabilities``."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(candidates))
    choices = tuple((candidates[k], None) for k in order)
    worked = tuple(f"{candidates[k]}: p = {num(float(probabilities[k]), 3)}" for k in order)
    answer = int(np.flatnonzero(order == 0)[0])
    why = ("room.why_next_token", {"token": candidates[0], "p": num(float(probabilities[0]), 3)})
    return Question("next_token", {"text": text}, choices, answer, worked, why)


def first_layer_question(answer: str, ranks, seed: int = 0) -> Question:
    """After which layer (from 1; 0 is the embedding) does the model's answer first enter the
    top 5 of the logit lens; ``ranks`` [n_layers + 1] its rank after each. The other choices are
    earlier layers and the last one, the reveal lists each choice's rank."""
    ranks = np.asarray(ranks)
    right = int(np.argmax(ranks <= 5))
    last = len(ranks) - 1
    near = (right - 8, right - 4, right - 2, last, right + 1)
    others = list(dict.fromkeys(x for x in near if 1 <= x <= last and x != right))  # fmt: skip
    rng = np.random.default_rng(seed)
    picked = [right, *rng.choice(others, size=min(3, len(others)), replace=False).tolist()]
    layers = sorted(int(layer) for layer in picked)
    choices = tuple((str(layer), None) for layer in layers)
    worked = tuple(f"{layer}: {int(ranks[layer])}" for layer in layers)
    said = {"answer": answer, "layer": right, "rank": int(ranks[right])}
    said |= {"before_layer": right - 1, "before": int(ranks[right - 1])}
    why = ("room.why_first_layer", said)
    return Question("first_layer", {"answer": answer}, choices, layers.index(right), worked, why)


BETS = 4  # the induction step's choices: the run's steps in this many equal spans, and "never"


def induction_step_question(drop: int | None, steps: int, half: float) -> Question:
    """In which span of the run's ``steps`` does the answer's loss first fall below ``half`` of
    chance (the induction head forming), at step ``drop`` (None: it never does)? The choices:
    BETS equal spans, then "not in these steps"."""
    edges = [round(steps * k / BETS) for k in range(BETS + 1)]
    choices = tuple((f"{a}–{b}", None) for a, b in zip(edges, edges[1:], strict=False))
    choices += (("", "room.choice_never"),)
    right = BETS if drop is None else min(BETS - 1, sum(drop >= edge for edge in edges[1:]))
    worked = () if drop is None else (f"loss < {num(half, 2)}: step {drop}",)
    why = ("room.why_induction_step", {"step": drop, "half": num(half, 2)})
    if drop is None:
        why = ("room.why_never", {"steps": steps, "half": num(half, 2)})
    return Question("induction_step", {"steps": steps}, choices, right, worked, why)
