"""The walkthrough's steps: the one table that the pipeline strip, the charts, the shapes line, the
pickers, the code lines, the clickable cells and the worked row read. (What each step can ask is
the question generator's own table, core/lessons/questions.py's STEP_KINDS: a room's band, which
sits below the pages, asks from it too.)

Adding a step means one row here, its chart function in step_charts.py and its strings
(step_, title_, lead_, explain_ in assets/strings/walkthrough.toml).
"""

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ui.kit.i18n import t
from ui.kit.number_text import sub
from ui.views.walkthrough import block, step_charts


@dataclass(frozen=True)
class Step:
    name: str  # its code in the URL (step=) and in its string keys
    formula: str  # LaTeX, indices from 0
    shapes: Callable  # (data, head, base) -> the shapes line, in symbols and numbers
    draw: Callable  # (Charts) -> None: the step's charts (step_charts.py)
    formula_1: str = ""  # the formula with indices from 1, where it shows an index
    symbols: tuple = ()  # the arrays its lines of core/reference.py assign (highlighted)
    per_head: bool = False  # one head at a time: the head picker shows
    focus: bool = False  # a focus row: the row picker shows
    row_story: bool = False  # the focus row is worked out below the chart
    depth: int = 0  # a clicked cell's story goes this far (1 S, 2 ÷√d_k, 3 mask, 4 A; 5 O = AV)
    parts: tuple = ()  # its charts side by side, named: a projector pages through them (◀ ▶)
    short_formula: bool = True  # a projector's band holds it beside the title (else: the notes)
    practice: tuple = ()  # the arrays a learner may write here (core.practice.STEPS)


def shape(rows, cols) -> str:
    return f"[{rows} × {cols}]"


def _sizes(data):
    """n, d_model, d_k, d_v and the number of heads of this trace."""
    return data.n, data.E.shape[1], data.d_k, data.d_v, data.W.W_O.shape[0] // data.d_v


def _qkv_shapes(data, head, base):
    """As the code computes them: X times the whole W_Q, then this head's d_k columns."""
    n, d, d_k, d_v, h = _sizes(data)
    first = head * d_k + base
    return t(
        "walkthrough.shapes_qkv",
        nd=shape(n, d),
        wq=shape(d, h * d_k),
        wk=shape(d, h * d_k),
        wv=shape(d, h * d_v),
        h=head + base,
        cols=f"{first}–{first + d_k - 1}",
        nk=shape(n, d_k),
        nv=shape(n, d_v),
    )


def _scaled_shapes(data, head, base):
    n, _, d_k, _, _ = _sizes(data)
    return f"S {shape(n, n)} ÷ √{d_k} (= {np.sqrt(d_k):.4g}) → {shape(n, n)}"


def _av_shapes(data, head, base):
    n, _, _, d_v, _ = _sizes(data)
    return f"A {shape(n, n)} × V {shape(n, d_v)} → O{sub(head + base)} {shape(n, d_v)}"


def _heads_shapes(data, head, base):
    n, d, _, d_v, h = _sizes(data)
    return (
        f"concat({h} × {shape(n, d_v)}) → {shape(n, h * d_v)};   "
        f"× W_O {shape(h * d_v, d)} → {shape(n, d)}"
    )


def _n_by(text: str):
    """A shapes line from a template: {nd} is [n × d_model], {nk} [n × d_k], {kn} [d_k × n] and
    {nn} [n × n]."""

    def shapes(data, head, base):
        n, d, d_k, _, _ = _sizes(data)
        return text.format(nd=shape(n, d), nk=shape(n, d_k), kn=shape(d_k, n), nn=shape(n, n))

    return shapes


HEAD_STEP = dict(per_head=True, focus=True)

STEPS = (
    Step("tokens", r"E = \begin{bmatrix} e_0 \\ e_1 \\ \vdots \\ e_{n-1} \end{bmatrix}",
         _n_by("E [n × d_model] = {nd}"), step_charts.tokens,
         formula_1=r"E = \begin{bmatrix} e_1 \\ e_2 \\ \vdots \\ e_n \end{bmatrix}"),
    Step("pe", r"\begin{aligned} PE_{pos,2i} &= \sin\!\left(\frac{pos}{10000^{2i/d_{model}}}\right)"
         r"\\ PE_{pos,2i+1} &= \cos\!\left(\frac{pos}{10000^{2i/d_{model}}}\right) \end{aligned}",
         _n_by("PE [n × d_model] = {nd}"), step_charts.pe),
    Step("x_pe", r"X = E + PE", _n_by("E {nd} + PE {nd} → X {nd}"), step_charts.x_pe),
    Step("qkv", r"Q = X W_Q,\quad K = X W_K,\quad V = X W_V", _qkv_shapes, step_charts.qkv,
         symbols=("Q", "K", "V"), parts=("Q", "K", "V"), practice=("Q", "K", "V"), **HEAD_STEP),
    Step("scores", r"S = Q K^\top,\qquad S_{ij} = q_i \cdot k_j",
         _n_by("Q {nk} × Kᵀ {kn} → S {nn}"), step_charts.scores, symbols=("S",), row_story=True,
         depth=1, practice=("S",), **HEAD_STEP),
    Step("scaled", r"S' = \frac{S}{\sqrt{d_k}}", _scaled_shapes, step_charts.scaled,
         symbols=("S_scaled",), row_story=True, depth=2, practice=("S_scaled",), **HEAD_STEP),
    Step("mask", r"S'_{ij} \leftarrow \begin{cases} S'_{ij} & M_{ij} = 1 \\ -\infty & M_{ij} = 0 "
         r"\end{cases}", _n_by("{nn} → {nn}"), step_charts.mask, symbols=("S_masked",),
         row_story=True, depth=3, parts=("S′", "M"), practice=("S_masked",), **HEAD_STEP),
    Step("softmax", r"A_{ij} = \frac{e^{S'_{ij}}}{\sum_{j'} e^{S'_{ij'}}}",
         _n_by("softmax {nn} → A {nn}"), step_charts.softmax, symbols=("A",), row_story=True,
         depth=4, practice=("A",), **HEAD_STEP),
    Step("av", r"O_h = A V,\qquad o_i = \sum_j a_{ij} v_j", _av_shapes, step_charts.av,
         symbols=("O",), row_story=True, depth=5, parts=("A", "V", "O"), practice=("O",),
         **HEAD_STEP),
    Step("heads", r"\text{MultiHead}(X) = \text{Concat}(O_0, \dots, O_{h-1})\, W_O", _heads_shapes,
         step_charts.heads, formula_1=r"\text{MultiHead}(X) = \text{Concat}(O_1, \dots, O_h)\, W_O",
         symbols=("concat", "output"), focus=True, parts=("Concat", "MultiHead"),
         practice=("concat", "output")),
    Step("block", block.FORMULA, lambda data, head, base: block.shapes(data), step_charts.block,
         focus=True, row_story=True, parts=block.PANELS, short_formula=False),
)  # fmt: skip

NAMES = tuple(step.name for step in STEPS)
BY_NAME = {step.name: step for step in STEPS}


def formula(name: str, base: int) -> str:
    """The step's formula in LaTeX, its indices counted from ``base``."""
    step = BY_NAME[name]
    return step.formula_1 if base == 1 and step.formula_1 else step.formula


def unbroken(line: str) -> str:
    """Each bracket of a shapes line kept whole, and with the symbol before it, when the line
    wraps (no-break spaces): a narrow column would otherwise split "[5 × 5]" after its "5", or
    leave "W_O" at the end of one line and its "[8 × 8]" on the next."""
    return re.sub(r"(?:(?<=\S) )?\[[^\]]*\]", lambda m: m.group(0).replace(" ", "\u00a0"), line)


def shapes_line(name: str, data, head: int, base: int = 0) -> str:
    """The step's shapes in symbols and numbers, e.g. 'Q [5 × 4] × Kᵀ [4 × 5] → S [5 × 5]'."""
    return BY_NAME[name].shapes(data, head, base)


def draw(name: str, data, settings, head: int, focus: int, part: int | None = None) -> None:
    """The charts of step ``name`` for ``head`` and the ``focus`` row (of its ``parts``, only
    ``part``, if given)."""
    BY_NAME[name].draw(step_charts.Charts.of(name, data, settings, head, focus, part))
