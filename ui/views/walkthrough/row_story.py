"""One query row written out with its real numbers: dot products, softmax, weighted sum.

Pure functions from arrays to lines of Markdown, in the learner's language.
"""

import math

import numpy as np

from ui.kit.i18n import t
from ui.kit.number_text import factor, num, sub

MAX_KEYS = 8  # keys written out in full; the rest are summarised
MAX_COMPONENTS = 6  # components of o_i written out in full


def keys_to_show(weights_row: np.ndarray, chosen: int | None = None) -> list[int]:
    """All keys for a short row; else the heaviest keys (and the chosen one), in order."""
    n = len(weights_row)
    if n <= MAX_KEYS:
        return list(range(n))
    heaviest = set(np.argsort(-weights_row, kind="stable")[: MAX_KEYS - 1].tolist())
    if chosen is not None:
        heaviest.add(int(chosen))
    return sorted(heaviest)


def dot_product_lines(
    q_i, K, keys, i: int, d_k: int, allowed_row, decimals: int, lang=None, base: int = 0
):
    """s_ij = q_i . k_j as a sum of products, then divided by sqrt(d_k). Indices are printed
    counted from ``base`` (0 or 1)."""
    root = math.sqrt(d_k)
    b = base
    lines = []
    for j in keys:
        products = " + ".join(
            f"{factor(a, decimals)}·{factor(b, decimals)}" for a, b in zip(q_i, K[j])
        )
        s = float(np.dot(q_i, K[j]))
        line = (
            f"s{sub(i + b, j + b)} = q{sub(i + b)}·k{sub(j + b)} = {products} = "
            f"**{num(s, decimals)}**;"
            f" ÷ √{d_k} → {num(s / root, decimals)}"
        )
        if not allowed_row[j]:
            line += f" → −∞ ({t('walkthrough.focus_masked_key', lang, j=j + b)})"
        lines.append(line)
    return lines


def row_exps(masked_row):
    """(visible keys, the row's max m over them, e^(s − m) with 0 where masked, their sum), or
    None when every key is masked: the numbers a softmax row is worked with on paper."""
    allowed = np.isfinite(masked_row)
    if not allowed.any():
        return None
    m = float(np.max(masked_row[allowed]))
    exps = np.where(allowed, np.exp(np.where(allowed, masked_row, m) - m), 0.0)
    return allowed, m, exps, float(exps.sum())


def softmax_lines(
    masked_row, weights_row, keys, i: int, decimals: int, lang=None, base: int = 0
) -> list[str]:
    """In the order they are worked on paper: the row's max m, each e^(s − m), their sum (over
    every key, written out or not), then each weight a_ij = e ÷ sum."""
    worked = row_exps(masked_row)
    if worked is None:
        return [t("walkthrough.focus_masked_key", lang, j="*")]
    allowed, m, exps, total = worked
    lines = [t("walkthrough.focus_max", lang, m=num(m, decimals))]
    for j in keys:
        if allowed[j]:
            s, e = num(masked_row[j], decimals), num(exps[j], decimals)
            lines.append(t("walkthrough.focus_exp", lang, j=j + base, s=s, m=factor(m, decimals),
                           e=e))  # fmt: skip
        else:
            lines.append(t("walkthrough.focus_exp_masked", lang, j=j + base))
    if len(keys) < len(masked_row):
        lines.append(t("walkthrough.focus_more", lang, k=len(masked_row) - len(keys)))
    lines.append(t("walkthrough.focus_sum", lang, total=num(total, decimals)))
    for j in keys:
        e, a = (num(exps[j], decimals), num(weights_row[j], decimals)) if allowed[j] else ("0", "0")
        lines.append(f"a{sub(i + base, j + base)} = {e} ÷ {num(total, decimals)} = **{a}**")
    return lines


def weighted_sum_lines(
    weights_row, V, keys, i: int, output_row, decimals: int, lang=None, base: int = 0
):
    """o_i[c] = sum_j a_ij v_j[c] for the first few components c."""
    lines = []
    for c in range(min(V.shape[1], MAX_COMPONENTS)):
        terms = " + ".join(
            f"{num(weights_row[j], decimals)}·{factor(V[j, c], decimals)}" for j in keys
        )
        if len(keys) < len(weights_row):
            terms += " + …"
        lines.append(f"o{sub(i + base)}[{c + base}] = {terms} = **{num(output_row[c], decimals)}**")
    return lines


def mask_lines(scaled_row, allowed_row, keys, i: int, decimals: int, lang=None, base: int = 0):
    """Which keys query i keeps and which become −∞."""
    lines = []
    for j in keys:
        if allowed_row[j]:
            lines.append(
                t(
                    "walkthrough.mask_kept",
                    lang,
                    i=i + base,
                    j=j + base,
                    value=num(scaled_row[j], decimals),
                )
            )
        else:
            lines.append(
                t(
                    "walkthrough.mask_hidden",
                    lang,
                    i=i + base,
                    j=j + base,
                    value=num(scaled_row[j], decimals),
                )
            )
    return lines
