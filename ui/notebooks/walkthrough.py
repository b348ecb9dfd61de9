"""The walkthrough's notebook: its sentence, settings and mask, every step of core/reference.py
from the same E, PE and weights (carried inside the notebook, each number exact). NumPy alone."""

from ui.kit.escape import markdown_text
from ui.notebooks import cells
from ui.notebooks.cells import say

FILE = "self-attention.ipynb"


def _inputs(data, settings) -> str:
    """The tokens, E, PE, X, the weights and the mask, each number exact."""
    lines = [f"tokens = {list(data.tokens)!r}", cells.exact("E", data.E)]
    if data.PE is not None:
        lines += [cells.exact("PE", data.PE), "X = E + PE"]
    else:
        lines += ["X = E"]
    lines += [
        cells.exact(f"W.{name}", getattr(data.W, name)) for name in ("W_Q", "W_K", "W_V", "W_O")
    ]
    lines.append(f"n_heads = {settings.n_heads}")
    lines.append(
        "mask = None" if data.mask is None else cells.exact("mask", data.mask) + ".astype(bool)"
    )
    return "\n".join([*lines, "print(tokens)", cells.show(["X"])])


def build(data, settings, lang: str, before: str = "") -> bytes:
    """The notebook of ``data`` (ui/work/traces.py's SentenceTrace for ``settings``), in ``lang``;
    ``before``: markdown for a cell after the title (a class's summary)."""
    about = {"sentence": markdown_text(" ".join(data.tokens)), "n": len(data.tokens),
             "d_model": settings.d_model, "heads": settings.n_heads, "seed": settings.seed,
             "pe": say(f"pe_{settings.positional}", lang),
             "mask": say(f"mask_{settings.mask}", lang)}  # fmt: skip
    return cells.written([
        cells.markdown(say("walkthrough_title", lang, **about)),
        *([cells.markdown(before)] if before else []),
        cells.code(cells.preamble()),
        cells.markdown(say("walkthrough_inputs", lang)),
        cells.code(_inputs(data, settings)),
        *cells.attention_steps(lang),
        *cells.saved(cells.TRACE, lang),
    ])  # fmt: skip
