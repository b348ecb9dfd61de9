"""/practice's notebook: attention to write at home, one step at a time (core.practice.STEPS),
for one head of the page's sentence. Each step is what to write (the learner's language), an
empty cell for the learner's line and a ``check("S", S)`` cell. The notebook carries the inputs
(X, the head's W_Q/W_K/W_V columns, W_O, mask, d_k, d_v, n) written exactly, and, for checking,
the app's right array for every step and the arrays of core.practice's own catalogue of classic
mistakes (core.practice.mistakes), packed as exact bytes: numbers to compare against, never the
lines that compute them. Its ``check`` compares as core.practice.same does (its own source), names
the mistake a wrong array equals, and then puts the right array under the step's name, so the
next step is checked on its own. NumPy alone; no import of the app."""

import base64

import numpy as np

from core import practice
from core.lessons import number_text
from ui.kit.escape import markdown_text
from ui.kit.i18n import t
from ui.kit.number_text import shown_index
from ui.notebooks import cells
from ui.notebooks.cells import printed, say

FILE = "write-attention.ipynb"
LOOSER = 100  # a mistake is matched within 100 × the tolerance, as core.practice.check does
TOOLS = '''import base64
import math

import numpy as np


def softmax(x, axis):
    """The softmax of x along ``axis``: the largest entry subtracted first (nothing overflows),
    a −∞ gets weight exactly 0, and a slice that is all −∞ gets all 0."""
    x = np.asarray(x, dtype=np.float64)
    top = np.max(x, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    e = np.exp(x - top)
    total = np.sum(e, axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)
'''
HELPERS = '''

def packed(shape, text):
    """An array carried as its exact float64 bytes (base64)."""
    return np.frombuffer(base64.b64decode(text), dtype="<f8").reshape(shape).copy()


def shape_text(shape):
    return "[" + " × ".join(str(side) for side in shape) + "]"


_SUP = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
'''


def packed(M) -> str:
    """``packed((5, 4), "...")``: M's float64 bytes, exact (−∞ included), for the notebook."""
    M = np.asarray(M, dtype="<f8")
    return f"packed({M.shape!r}, {base64.b64encode(M.tobytes()).decode('ascii')!r})"


def _names_line(names: dict, lang: str) -> str:
    """What a step's line may read, each with its shape (a number with its value)."""
    parts = []
    for name, value in names.items():
        if np.ndim(value) == 0:
            parts.append(f"`{name}` = {value:g}")
            continue
        note = {"mask": "practice.names_mask", "O_heads": "practice.names_heads"}.get(name)
        extra = f" ({t(note, lang)})" if note else ""
        parts.append(f"`{name}` {_shape(np.shape(value))}{extra}")
    return f"{t('practice.names', lang)} " + " · ".join(parts)


def _shape(shape) -> str:
    """[5 × 4], as the page writes shapes."""
    return "[" + " × ".join(str(side) for side in shape) + "]"


def _inputs(data, head: int) -> str:
    """X, the head's W_Q/W_K/W_V columns, W_O, the mask (True where a query may see the key),
    d_k, d_v, n (as core.practice.names_for gives them, the sizes as whole numbers), and every
    step's name empty until the learner writes it."""
    names = practice.names_for(practice.STEPS[0], data.trace, head, data.W)
    lines = [cells.exact(name, names[name]) for name in ("X", "W_Q", "W_K", "W_V", "W_O")]
    lines.append(f"mask = np.array({names['mask'].tolist()!r})")
    lines += [f"{name} = {int(names[name])}" for name in ("d_k", "d_v", "n")]
    lines.append(" = ".join(practice.STEPS) + " = None")
    return "\n".join(lines)


def _answers(data, head: int) -> str:
    """The app's right array for every step, each step's mistakes' arrays, the tolerance."""
    trace, tol = data.trace, 1e-9
    if practice.expected("A", trace, head).dtype != np.float64:
        tol = practice.FLOAT32_TOL
    right, wrong = [], []
    for step in practice.STEPS:
        names = practice.names_for(step, trace, head, data.W)
        answer = practice.expected(step, trace, head)
        right.append(f"    {step!r}: {packed(answer)},")
        catalogue = [f"({key!r}, {packed(M)})" for key, M in practice.mistakes(step, names, answer)]
        wrong.append(f"    {step!r}: [" + ", ".join(catalogue) + "],")
    O_heads = np.asarray(practice.names_for("concat", trace, head, data.W)["O_heads"])
    return "\n".join([
        f"TOL, LOOSER = {tol!r}, {LOOSER}", "RIGHT = {", *right, "}", "MISTAKES = {", *wrong, "}",
        f"AFTER = {{'O': {{'O_heads': {packed(O_heads)}}}}}  # what the steps after O may read",
        "yours = {}  # what you wrote, kept when a check puts the right array under its name",
    ])  # fmt: skip


def _says(lang: str) -> str:
    """Each mistake's one sentence, in the notebook's language (assets/strings/practice.toml)."""
    lines = [f"    {key!r}: {t(f'practice.mistake_{key}', lang)!r}," for key in practice.MISTAKES]
    return "\n".join(["SAYS = {", *lines, "}"])


def _check(lang: str) -> str:
    """``check(name, value)``: the verdict printed, then the right array under the name."""
    diff = "power_of_ten(difference(mine, right) or 0.0)"
    return f'''

def check(name, value):
    right = RIGHT[name]
    yours[name] = value
    try:
        mine = None if value is None else np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        mine = False
    found = None if mine is None or mine is False else next(
        (key for key, wrong in MISTAKES[name] if same(mine, wrong, LOOSER * TOL)), None)
    if mine is None:
        print({printed("print_not_written", lang, name="name")})
    elif mine is False:
        print({printed("print_not_numbers", lang, name="name")})
    elif same(mine, right, TOL):
        print({printed("print_right", lang, name="name", diff=diff)})
    elif found is not None:
        print({printed("print_mistake", lang, mistake="found", why="SAYS[found]")})
    elif mine.ndim == 0:
        print({printed("print_not_a_matrix", lang, name="name", right="shape_text(right.shape)")})
    elif mine.shape != right.shape:
        print({printed("print_shape", lang, name="name", yours="shape_text(mine.shape)",
                       right="shape_text(right.shape)")})
    elif difference(mine, right) == math.inf:
        print({printed("print_infinite", lang)})
    else:
        print({printed("print_differs", lang, diff=diff)})
    for given, array in {{name: right, **AFTER.get(name, {{}})}}.items():
        globals()[given] = array.copy()
'''  # fmt: skip


def _checking(data, head: int, lang: str) -> str:
    """The cell that holds the numbers to compare against and defines ``check``: core.practice's
    own same (and its largest difference), number_text's power_of_ten for the differences."""
    own = cells.source(practice.same, practice._difference, number_text.power_of_ten)
    own = own.replace("def _difference(", "def difference(")
    parts = (HELPERS, own, _check(lang), _says(lang), _answers(data, head))
    return "\n\n\n".join(part.strip() for part in parts)


def _step(step: str, data, settings, head: int, lang: str) -> list:
    """What to write, the empty cell for the learner's line, and its check."""
    shape = _shape(practice.expected(step, data.trace, head).shape)
    task = t(f"practice.task_{step}", lang, h=shown_index(head, settings.base), shape=shape,
             first=shown_index(0, settings.base))  # fmt: skip
    names = _names_line(practice.names_for(step, data.trace, head, data.W), lang)
    return [
        cells.markdown(f"## {t(f'practice.step_{step}', lang)}\n\n{task}\n\n{names}"),
        cells.code(say("practice_write", lang, name=step)),
        cells.code(f"check({step!r}, {step})".replace("'", '"')),
    ]


def build(data, settings, lang: str, head: int = 0) -> bytes:
    """The exercise for head ``head`` of ``data`` (ui/work/traces.py's SentenceTrace for
    ``settings``), in ``lang``."""
    h = shown_index(head, settings.base)
    about = {"sentence": markdown_text(" ".join(data.tokens)), "n": len(data.tokens),
             "d_model": settings.d_model, "heads": settings.n_heads, "seed": settings.seed,
             "h": h, "pe": say(f"pe_{settings.positional}", lang),
             "mask": say(f"mask_{settings.mask}", lang)}  # fmt: skip
    return cells.written([
        cells.markdown(say("practice_title", lang, **about)),
        cells.markdown(say("practice_how", lang)),
        cells.code(TOOLS.strip()),
        cells.markdown(say("practice_inputs", lang, h=h)),
        cells.code(_inputs(data, head)),
        cells.markdown(say("practice_answers", lang)),
        cells.code(_checking(data, head, lang)),
        *(cell for step in practice.STEPS for cell in _step(step, data, settings, head, lang)),
    ])  # fmt: skip
