"""Taking the lesson home as a Jupyter notebook: the walkthrough's view (its sentence, settings,
mask and step) as cells that rebuild every intermediate in plain NumPy from the same inputs, in
the learner's language, written with nbformat.

The inputs travel inside the notebook at full precision (the tokens, E, PE and the four weight
matrices: a float's repr reads back as the same float), and the arithmetic is core/reference.py's
own lines, read from its source when the notebook is made (one source: the cells cannot drift from
the code the page shows), with the helpers they call (core/heads.py's split and merge). After each
step a cell prints its shape and first rows, to compare with the screen; the last cell saves every
array as trace_from_notebook.npz. It needs NumPy alone.
"""

import inspect
import json
import textwrap

import nbformat
import numpy as np
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from core import heads, reference
from ui.kit.escape import markdown_text
from ui.kit.i18n import t

SAVED = "trace_from_notebook.npz"
# core/reference.py's lines, step by step: (the first words of the step's line, its string key)
STEPS = (
    ("Q = ", "nb_qkv"),
    ("S = ", "nb_scores"),
    ("S_scaled = ", "nb_scaled"),
    ("S_masked = ", "nb_masked"),
    ("A = ", "nb_softmax"),
    ("O = ", "nb_av"),
    ("concat = ", "nb_concat"),
)
SHOWN = {  # after each step: the arrays it made
    "nb_qkv": ("Q", "K", "V"), "nb_scores": ("S",), "nb_scaled": ("S_scaled",),
    "nb_masked": ("S_masked",), "nb_softmax": ("A",), "nb_av": ("O",),
    "nb_concat": ("concat", "output"),
}  # fmt: skip


def _array(name: str, M) -> str:
    """``name = np.array(...)`` holding M exactly (each float as its repr; -inf as -np.inf)."""
    rows = json.dumps(np.asarray(M, dtype=np.float64).tolist())
    rows = rows.replace("-Infinity", "-np.inf").replace("Infinity", "np.inf")
    return f"{name} = np.array({rows})"


def _reference_lines() -> list[str]:
    """core/reference.py's attention, its lines after ``xp = …`` up to the trace it returns."""
    body = inspect.getsource(reference.attention).splitlines()
    start = next(i for i, line in enumerate(body) if line.strip().startswith("xp = ")) + 1
    lines = [line for line in body[start:] if not line.strip().startswith("return ")]
    return textwrap.dedent("\n".join(lines)).splitlines()


def _helpers() -> str:
    """core/heads.py's split and merge, as they are, with NumPy as their array namespace; and
    softmax along the rows as core/softmax.py computes it (the row's maximum subtracted)."""
    source = "\n\n".join(inspect.getsource(f) for f in (heads.split_heads, heads.merge_heads))
    return (
        "xp = np\n\n\ndef array_namespace(*arrays):\n    return np\n\n\n" + source + "\n\n"
        "def softmax_rows(Z):\n"
        '    """softmax along the last axis; a −inf entry gets weight 0."""\n'
        "    E = np.exp(Z - Z.max(axis=-1, keepdims=True))\n"
        "    return E / E.sum(axis=-1, keepdims=True)\n\n\n"
        "class W:  # the weights by name, as core/reference.py reads them (W.W_Q …)\n"
        "    pass\n"
    )


def _show(names) -> str:
    return "\n".join(
        f'print("{name}", {name}.shape)\nprint(np.round({name}, 4)[..., :3, :])' for name in names
    )


def _inputs(data, settings) -> str:
    """The inputs' cell: the tokens, E, PE, X, the weights and the mask, each number exact."""
    lines = [f"tokens = {list(data.tokens)!r}", _array("E", data.E)]
    if data.PE is not None:
        lines += [_array("PE", data.PE), "X = E + PE"]
    else:
        lines += ["X = E"]
    lines += [_array(f"W.{name}", getattr(data.W, name)) for name in ("W_Q", "W_K", "W_V", "W_O")]
    lines.append(f"n_heads = {settings.n_heads}")
    lines.append(
        "mask = None" if data.mask is None else _array("mask", data.mask) + ".astype(bool)"
    )
    return "\n".join([*lines, "print(tokens)", _show(["X"])])


def build(data, settings, lang: str) -> bytes:
    """The notebook of ``data`` (ui/kit/traces.py's SentenceTrace for ``settings``), in ``lang``."""

    def say(key: str, **params) -> str:
        return t(f"walkthrough.{key}", lang, **params)

    about = {"sentence": markdown_text(" ".join(data.tokens)), "n": len(data.tokens),
             "d_model": settings.d_model, "heads": settings.n_heads, "seed": settings.seed,
             "pe": say(f"nb_pe_{settings.positional}"),
             "mask": say(f"nb_mask_{settings.mask}")}  # fmt: skip
    cells = [
        new_markdown_cell(say("nb_title", **about)),
        new_code_cell("import math\n\nimport numpy as np\n\n" + _helpers()),
        new_markdown_cell(say("nb_inputs")),
        new_code_cell(_inputs(data, settings)),
    ]
    lines = _reference_lines()
    for at, (first, key) in enumerate(STEPS):
        until = STEPS[at + 1][0] if at + 1 < len(STEPS) else None
        start = next(i for i, line in enumerate(lines) if line.startswith(first))
        end = next((i for i, line in enumerate(lines) if until and line.startswith(until)),
                   len(lines))  # fmt: skip
        cells.append(new_markdown_cell(say(key)))
        cells.append(new_code_cell("\n".join(lines[start:end]) + "\n" + _show(SHOWN[key])))
    names = ("X", "Q", "K", "V", "S", "S_scaled", "S_masked", "A", "O", "concat", "output")
    cells.append(new_markdown_cell(say("nb_saved", file=SAVED)))
    cells.append(
        new_code_cell(f'np.savez("{SAVED}", ' + ", ".join(f"{n}={n}" for n in names) + ")")
    )
    notebook = new_notebook(cells=cells, metadata={"language_info": {"name": "python"}})
    return nbformat.writes(notebook).encode("utf-8")
