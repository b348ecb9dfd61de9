"""What every notebook shares: its inputs written exactly, core/reference.py's own lines step by
step (read from its source when the notebook is made, so the cells cannot drift from the code the
page shows), a cell after each step that prints its shape and first rows, and the saved arrays."""

import inspect
import json
import textwrap

import nbformat
import numpy as np
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from core import heads, reference
from core.softmax import softmax_block
from ui.kit.i18n import STRINGS, t

SAVED = "trace_from_notebook.npz"
MIME = "application/x-ipynb+json"
# core/reference.py's lines, step by step: (the first words of the step's line, its string key)
STEPS = (
    ("Q = ", "qkv"),
    ("S = ", "scores"),
    ("S_scaled = ", "scaled"),
    ("S_masked = ", "masked"),
    ("A = ", "softmax"),
    ("O = ", "av"),
    ("concat = ", "concat"),
)
SHOWN = {  # after each step: the arrays it made
    "qkv": ("Q", "K", "V"), "scores": ("S",), "scaled": ("S_scaled",),
    "masked": ("S_masked",), "softmax": ("A",), "av": ("O",), "concat": ("concat", "output"),
}  # fmt: skip
TRACE = ("X", "Q", "K", "V", "S", "S_scaled", "S_masked", "A", "O", "concat", "output")
SOFTMAX = '''

def softmax_rows(Z, overwrite=False, out=None):
    """softmax along the last axis, as core/softmax.py computes it: softmax_block on the rows."""
    out = np.empty(Z.shape, Z.dtype) if out is None else out
    n = Z.shape[-1]
    softmax_block(np.ascontiguousarray(Z).reshape(-1, n), out.reshape(-1, n))
    return out


def softmax_along(Z, axis):
    return np.moveaxis(softmax_rows(np.moveaxis(Z, axis, -1)), -1, axis)
'''
WEIGHTS = """

class W:  # the weights by name, as core/reference.py reads them (W.W_Q …)
    pass
"""


def say(key: str, lang: str, **params) -> str:
    return t(f"notebook.{key}", lang, **params)


def printed(key: str, lang: str, **values) -> str:
    """The label ``key`` in ``lang`` as Python source for a print: an f-string whose placeholders
    the notebook fills in, ``values`` naming the expression for each ("top.kept_count"); a label
    with plural forms, the one its count's value picks when the notebook runs."""
    entry, fields = STRINGS[f"notebook.{key}"][lang], {n: "{" + v + "}" for n, v in values.items()}
    if isinstance(entry, dict):  # {"count": name, "one": ..., "other": ...}
        one, other = (f"f{entry[form].format(**fields)!r}" for form in ("one", "other"))
        return f"({one} if {values[entry['count']]} == 1 else {other})"
    return f"f{say(key, lang, **fields)!r}" if values else repr(say(key, lang))


def exact(name: str, M) -> str:
    """``name = np.array(...)`` holding M exactly (each float as its repr; -inf as -np.inf)."""
    rows = json.dumps(np.asarray(M, dtype=np.float64).tolist())
    rows = rows.replace("-Infinity", "-np.inf").replace("Infinity", "np.inf")
    return f"{name} = np.array({rows})"


def weights(W, names=("W_Q", "W_K", "W_V", "W_O")) -> list[str]:
    """The weights as core/reference.py reads them (W.W_Q …), each number exact."""
    return [exact(f"W.{name}", np.asarray(getattr(W, name))) for name in names]


def show(names) -> str:
    """Print each array's shape and its first rows (3 of each matrix, 4 decimals)."""
    return "\n".join(
        f'print("{name}", {name}.shape)\nprint(np.round({name}, 4)[..., :3, :])' for name in names
    )


def source(*functions) -> str:
    """The functions' own source, to run in the notebook as they run in the app."""
    return "\n\n".join(inspect.getsource(f) for f in functions)


def preamble() -> str:
    """The imports and the helpers core/reference.py calls: core/heads.py's split and merge as
    they are, with NumPy as their array namespace, and the softmax."""
    return (
        "import math\n\nimport numpy as np\n\nxp = np\n\n\ndef array_namespace(*arrays):\n"
        "    return np\n\n\n" + source(heads.split_heads, heads.merge_heads) + softmax() + WEIGHTS
    )


def softmax() -> str:
    """core/softmax.py's softmax_block (the row's largest score subtracted first; a −inf score
    gets weight exactly 0, a row with no allowed key all 0), applied to every row."""
    return "\n\n" + source(softmax_block) + SOFTMAX


def _reference_lines() -> list[str]:
    """core/reference.py's attention, its lines after ``xp = …`` up to the trace it returns."""
    body = inspect.getsource(reference.attention).splitlines()
    start = next(i for i, line in enumerate(body) if line.strip().startswith("xp = ")) + 1
    lines = [line for line in body[start:] if not line.strip().startswith("return ")]
    return textwrap.dedent("\n".join(lines)).splitlines()


BATCHED = {"qkv"}  # the steps whose words say the batch's shapes


def attention_steps(lang: str, batch: bool = False) -> list:
    """A markdown cell and a code cell per step of core/reference.py (X, W, n_heads and mask
    defined before them), each code cell ending with the arrays it made. ``batch``: X is
    [b, n, d_model], so every shape gains the batch's axis first ([b, h, n, d_k] …), in the
    words and in the lines' shape comments."""
    lines, cells = _reference_lines(), []
    if batch:
        lines = [line.replace("# [", "# [b, ") for line in lines]
    for at, (first, key) in enumerate(STEPS):
        until = STEPS[at + 1][0] if at + 1 < len(STEPS) else None
        start = next(i for i, line in enumerate(lines) if line.startswith(first))
        end = next((i for i, line in enumerate(lines) if until and line.startswith(until)),
                   len(lines))  # fmt: skip
        words = f"{key}_batch" if batch and key in BATCHED else key
        cells.append(new_markdown_cell(say(words, lang)))
        cells.append(new_code_cell("\n".join(lines[start:end]) + "\n" + show(SHOWN[key])))
    return cells


def saved(names, lang: str) -> list:
    """The last cells: every array in ``names`` saved as SAVED."""
    code = f'np.savez("{SAVED}", ' + ", ".join(f"{n}={n}" for n in names) + ")"
    return [new_markdown_cell(say("saved", lang, file=SAVED)), new_code_cell(code)]


def markdown(text: str):
    return new_markdown_cell(text)


def code(text: str):
    return new_code_cell(text)


def written(cells) -> bytes:
    """The notebook's file: nbformat's own writer, version 4, Python's kernel."""
    notebook = new_notebook(
        cells=cells,
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
        },
    )
    nbformat.validate(notebook)
    return nbformat.writes(notebook).encode("utf-8")
