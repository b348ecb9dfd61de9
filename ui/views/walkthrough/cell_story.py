"""Where one clicked cell's number comes from, every arithmetic step with the real numbers:
q_i and k_j, their products and sum, ÷√d_k, the mask entry, the row's exponentials and their sum,
the weight; for O, Σ_j a_ij v_j. Pure: arrays in, lines of Markdown out, in the learner's language.
"""

import math

import numpy as np

from ui.kit.i18n import t
from ui.kit.number_text import factor, num, sub
from ui.views.walkthrough.row_story import keys_to_show, row_exps
from ui.views.walkthrough.steps import BY_NAME


def _vector(v, decimals: int) -> str:
    return "[" + ", ".join(num(x, decimals) for x in v) + "]"


def score_story(tr, head: int, i: int, j: int, step: str, decimals: int, base: int = 0) -> list:
    """The lines from q_i and k_j to the clicked cell of S, S/√d_k, the masked S/√d_k or A."""
    q, k = tr.Q[head, i], tr.K[head, j]
    d_k = q.shape[0]
    si, sj, sij = sub(i + base), sub(j + base), sub(i + base, j + base)
    s = float(q @ k)
    products = " + ".join(f"{factor(a, decimals)}·{factor(b, decimals)}" for a, b in zip(q, k))
    lines = [
        f"q{si} = {_vector(q, decimals)}",
        f"k{sj} = {_vector(k, decimals)}",
        f"s{sij} = q{si}·k{sj} = {products} = **{num(s, decimals)}**",
    ]
    depth = BY_NAME[step].depth  # how far a score cell's story goes
    if depth >= 2:
        lines.append(
            f"s{sij} ÷ √{d_k} = {num(s, decimals)} ÷ {num(math.sqrt(d_k), decimals)} = "
            f"**{num(s / math.sqrt(d_k), decimals)}**"
        )
    masked_row = tr.S_masked[head, i]
    allowed = bool(np.isfinite(masked_row[j]))
    if depth >= 3:
        key = "walkthrough.cell_mask_kept" if allowed else "walkthrough.cell_mask_hidden"
        lines.append(t(key, ij=sij, i=i + base, j=j + base, m=1 if allowed else 0))
    if depth >= 4:
        lines += _softmax_story(masked_row, tr.A[head, i], i, j, decimals, base)
    return lines


def _softmax_story(masked_row, A_row, i: int, j: int, decimals: int, base: int) -> list:
    worked = row_exps(masked_row)
    if worked is None:
        return [t("walkthrough.cell_row_all_masked")]
    finite, m, exps, total = worked
    keys = keys_to_show(A_row, chosen=j)
    terms = [
        f"e^({num(masked_row[k], decimals)} − {factor(m, decimals)}) = {num(exps[k], decimals)}"
        for k in keys
        if finite[k]
    ]
    lines = [t("walkthrough.cell_row_max", m=num(m, decimals)), "; ".join(terms)]
    if len(keys) < len(A_row):
        lines.append(t("walkthrough.focus_more", k=len(A_row) - len(keys)))
    lines.append(t("walkthrough.cell_exp_sum", total=num(total, decimals)))
    a = f"a{sub(i + base, j + base)}"
    if finite[j]:
        lines.append(
            f"{a} = {num(exps[j], decimals)} ÷ {num(total, decimals)} = "
            f"**{num(A_row[j], decimals)}**"
        )
    else:
        lines.append(f"{a} = **0** ({t('walkthrough.cell_masked_zero')})")
    return lines


def output_story(tr, head: int, i: int, c: int, decimals: int, base: int = 0) -> list:
    """o_i[c] = Σ_j a_ij v_j[c], every term written out (the heaviest keys past eight)."""
    A_row, V = tr.A[head, i], tr.V[head]
    keys = keys_to_show(A_row)
    terms = " + ".join(f"{num(A_row[k], decimals)}·{factor(V[k, c], decimals)}" for k in keys)
    if len(keys) < len(A_row):
        terms += " + …"
    column = [f"v{sub(k + base)}[{c + base}] = {num(V[k, c], decimals)}" for k in keys]
    weights = [f"a{sub(i + base, k + base)} = {num(A_row[k], decimals)}" for k in keys]
    return [
        "; ".join(weights),
        "; ".join(column),
        f"o{sub(i + base)}[{c + base}] = Σⱼ a{sub(i + base)}ⱼ vⱼ[{c + base}] = {terms} = "
        f"**{num(tr.O[head, i, c], decimals)}**",
    ]


def story(step: str, tr, head: int, row: int, col: int, decimals: int, base: int = 0) -> list:
    if step == "av":
        return output_story(tr, head, row, col, decimals, base)
    return score_story(tr, head, row, col, step, decimals, base)
