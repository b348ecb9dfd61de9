"""The hand check's notebook: its n = 3 example of small whole numbers (as the learner left it),
every step of core/reference.py with one head, then the same attention one query at a time in
plain Python, as the page's two ways do. NumPy alone."""

from types import SimpleNamespace

from core.lessons import hand_example
from ui.notebooks import cells
from ui.notebooks.cells import say

FILE = "hand-check.ipynb"
LOOP = """base = {base}  # the queries numbered as the page numbers them (the sidebar's setting)
steps = per_token(Q[0], K[0], V[0], causal={causal})
for step in steps:
    print({query})
loop_O = np.array([step.output for step in steps])
print({difference}, np.abs(loop_O - O[0]).max())"""
QUERY = {"i": "step.i + base", "token": "tokens[step.i]", "weights": "np.round(step.weights, 4)",
         "output": "np.round(step.output, 4)"}  # fmt: skip


def build(matrices: dict, trace, tokens, causal: bool, lang: str, base: int = 1) -> bytes:
    """The notebook of the hand check's ``matrices`` (X, W_Q, W_K, W_V) and its trace; its
    queries numbered from ``base``, as the page numbers them."""
    d_v, n = matrices["W_V"].shape[1], len(tokens)
    inputs = "\n".join([
        f"tokens = {list(tokens)!r}",
        cells.exact("X", matrices["X"]),
        *cells.weights(SimpleNamespace(**matrices), ("W_Q", "W_K", "W_V")),
        f"W.W_O = np.eye({d_v}, {matrices['X'].shape[1]})  # one head: the page reads O itself",
        "n_heads = 1",
        f"mask = np.tril(np.ones(({n}, {n}), dtype=bool))" if causal else "mask = None",
        cells.show(["X"]),
    ])  # fmt: skip
    about = {"tokens": "、".join(tokens) if lang == "zh" else ", ".join(tokens),
             "mask": say(f"mask_{'causal' if causal else 'none'}", lang), "d_v": d_v}  # fmt: skip
    loop = "from dataclasses import dataclass\n\n\n" + cells.source(
        hand_example.QueryStep, hand_example.per_token
    )
    query = cells.printed("print_query", lang, **QUERY)
    difference = cells.printed("print_difference", lang)
    return cells.written([
        cells.markdown(say("hand_title", lang, **about)),
        cells.code(cells.preamble()),
        cells.markdown(say("hand_inputs", lang)),
        cells.code(inputs),
        *cells.attention_steps(lang),
        cells.markdown(say("hand_loop", lang)),
        cells.code(loop + "\n\n" + LOOP.format(causal=causal, base=base, query=query,
                                                difference=difference)),  # fmt: skip
        *cells.saved((*cells.TRACE, "loop_O"), lang),
    ])  # fmt: skip
