"""The matrices a learner can check on the hand-check page, one row at a time: the right row, a
hint for the first number that is off, and the whole working of that row. Pure text: the page
draws it in ui/views/hand_check/answer.py, and compares with text.check_answer."""

import math

import numpy as np

from ui.kit.i18n import t
from ui.kit.number_text import factor, num, shown_index, sub
from ui.views.hand_check.text import places, worked_row

CHECKABLE = ("Q", "K", "V", "S", "S_scaled", "A", "O")  # in the order they are computed
PROJECTIONS = {"Q": "W_Q", "K": "W_K", "V": "W_V"}
ENTRY = {"Q": "q", "K": "k", "V": "v", "S": "s", "S_scaled": "s", "A": "a", "O": "o"}
ROW_SUM_SLACK = 0.02  # a typed row of A that adds up to 1 within this "does add up to 1"


def space(lang: str) -> str:
    """Between two sentences: none after a full-width 。, one after a full stop."""
    return "" if lang == "zh" else " "


def expected_row(trace, which: str, i: int) -> np.ndarray:
    """Row i of the checked matrix, as the page computed it (one head)."""
    return getattr(trace, which)[0][i]


def entry_name(which: str, i: int, j: int, base: int) -> str:
    """The paper's name of entry (i, j): q₀,₂, s₁,₁ / √d_k, a₂,₀ …"""
    name = f"{ENTRY[which]}{sub(i + base, j + base)}"
    return f"{name} / √d_k" if which == "S_scaled" else name


def _dot(left, right, decimals: int) -> str:
    p = places(np.stack([left, right]), decimals)
    return " + ".join(f"{factor(a, p)}·{factor(b, p)}" for a, b in zip(left, right, strict=True))


def hint(which, i, j, typed, matrices, trace, base: int, decimals: int, lang: str) -> str:
    """What entry (i, j), the first one off, is made of, and what to check first; it names the
    inputs of the entry (with their numbers where they are given, not computed) but not its
    value. ``typed`` is the learner's row, for what it adds up to."""
    first = t("hand_check.hint_first", lang, nth=j + 1, entry=entry_name(which, i, j, base))
    row, col = shown_index(i, base), shown_index(j, base)
    params = {"entry": entry_name(which, i, j, base), "row": row, "col": col}
    if which in PROJECTIONS:
        W = matrices[PROJECTIONS[which]]
        terms = _dot(matrices["X"][i], W[:, j], decimals)
        body = t("hand_check.hint_projection", lang, W=PROJECTIONS[which], terms=terms, **params)
    elif which == "S":
        body = t("hand_check.hint_S", lang, d_k=trace.Q.shape[-1], **params)
    elif which == "S_scaled":
        root = num(math.sqrt(trace.Q.shape[-1]), decimals)
        s = f"s{sub(i + base, j + base)}"
        body = t("hand_check.hint_S_scaled", lang, s=s, root=root, **params)
    elif which == "A" and np.isneginf(trace.S_masked[0][i, j]):
        body = t("hand_check.hint_A_masked", lang, **params)
    elif which == "A":
        total = float(sum(typed))
        key = "hint_A_sums_to_1" if abs(total - 1) <= ROW_SUM_SLACK else "hint_A_sum"
        body = t(f"hand_check.{key}", lang, total=num(total, decimals), **params)
    else:
        V = trace.V[0][:, j]
        terms = " + ".join(f"a{sub(i + base, k + base)}·{factor(v, places(V, decimals))}"
                           for k, v in enumerate(V))  # fmt: skip
        body = t("hand_check.hint_O", lang, terms=terms, **params)
    return first + space(lang) + body


def _projection_lines(which, i, matrices, trace, tokens, decimals, base, lang) -> list[str]:
    W, M = matrices[PROJECTIONS[which]], getattr(trace, which)[0]
    x = f"x{sub(i + base)}"
    heading = t("hand_check.working_projection", lang, row=f"{ENTRY[which]}{sub(i + base)}",
                x=x, W=PROJECTIONS[which], token=tokens[i])  # fmt: skip
    p = places(M, decimals)
    lines = [
        f"{entry_name(which, i, c, base)} = {_dot(matrices['X'][i], W[:, c], decimals)}"
        f" = **{num(M[i, c], p)}**"
        for c in range(W.shape[1])
    ]
    return [heading, *lines]


def working(which, i, matrices, trace, steps, tokens, decimals, base, lang) -> list[str]:
    """Row i of the checked matrix worked out, up to that matrix: a heading, then its lines."""
    if which in PROJECTIONS:
        return _projection_lines(which, i, matrices, trace, tokens, decimals, base, lang)
    lines = worked_row(steps[i], tokens, trace, decimals, base, lang)
    n = len(steps[i].scores)
    upto = {"S": 1 + n, "S_scaled": 2 + n, "A": len(lines) - 1, "O": len(lines)}[which]
    return lines[:upto]
