"""The hand check's arithmetic as text: parsing typed cells, the worked row of each query, the
worksheet's blocks (drawn as Markdown here and as printable HTML by
ui/views/hand_check/worksheet.py), answers."""

import io
import math
import re
from dataclasses import dataclass

import numpy as np

import core
from core.lessons import hand_example
from ui.kit.i18n import t
from ui.kit.number_text import factor, indices, num, row_label, shown_index, sub

N = 3  # tokens in the hand example
HAND_TOKENS = {"en": ("I", "love", "you"), "zh": ("我", "喜欢", "你")}
MATRIX_NAMES = ("X", "W_Q", "W_K", "W_V")
EXP_DECIMALS = 4  # the table of e^x is for working on paper: always 4 decimals


@dataclass(frozen=True)
class CellProblem:
    matrix: str
    row: int
    col: int
    text: str
    finite_but_not: bool  # parsed as a number, but NaN or infinite


def parse_matrix(name: str, cells) -> tuple[np.ndarray | None, CellProblem | None]:
    """Cells (strings or numbers, 2-D) as floats, or the first cell that is not a finite number."""
    rows = [list(row) for row in cells]
    values = np.zeros((len(rows), len(rows[0]) if rows else 0))
    for i, row in enumerate(rows):
        for j, cell in enumerate(row):
            text = "" if cell is None else str(cell).strip().replace("−", "-")
            try:
                value = float(text)
            except ValueError:
                return None, CellProblem(name, i, j, str(cell), False)
            if not math.isfinite(value) or abs(value) > 1e6:
                return None, CellProblem(name, i, j, str(cell), True)
            values[i, j] = value
    return values, None


def hand_trace(matrices: dict[str, np.ndarray], causal: bool = False) -> core.AttentionTrace:
    """One head, no positional encoding; the page reads the head's own output O (W_O unused)."""
    d_v, d_model = matrices["W_V"].shape[1], matrices["X"].shape[1]
    W = core.Weights(
        W_Q=matrices["W_Q"],
        W_K=matrices["W_K"],
        W_V=matrices["W_V"],
        W_O=np.eye(d_v, d_model),
    )
    mask = core.causal_mask(N) if causal else None
    return core.attention(matrices["X"], W, n_heads=1, mask=mask)


def steps_of(trace) -> list:
    """The same attention one query at a time, from the trace's Q, K and V (plain Python)."""
    causal = bool(np.isneginf(trace.S_masked[0]).any())
    return hand_example.per_token(trace.Q[0], trace.K[0], trace.V[0], causal)


def places(M: np.ndarray, decimals: int) -> int:
    """Whole-number matrices print without decimals; the rest with the decimals shown."""
    return 0 if np.all(M == np.round(M)) else decimals


def exponent(x: float) -> str:
    """An exponent as short as it is exact: 0, −0.5, −1, −1.25."""
    return num(x, 0) if x == round(x) else num(x, len(f"{abs(x):g}".split(".")[1]))


def exp_table(steps) -> list[tuple[str, str]]:
    """(x, e^x) for every exponent the softmax of these rows needs."""
    return [(exponent(x), num(math.exp(x), EXP_DECIMALS)) for x in hand_example.exponents(steps)]


def worked_row(step, tokens, trace, decimals: int, base: int, lang: str) -> list[str]:
    """Query i worked out in lines: each score, ÷√d_k, the mask, e^(x − m), the weights, o_i."""
    Q, K = trace.Q[0], trace.K[0]
    i, d_k, n = step.i, Q.shape[1], len(step.scores)
    b, d, sep = base, decimals, t("hand_check.hand_sep", lang)
    lines = [t("hand_check.row_query", lang, q=f"q{sub(i + b)}", token=tokens[i])]
    p = places(np.stack([Q, K]), d)
    for j in range(n):
        terms = " + ".join(f"{factor(Q[i, c], p)}·{factor(K[j, c], p)}" for c in range(d_k))
        score = num(step.scores[j], places(np.array(step.scores), d))
        lines.append(f"s{sub(i + b, j + b)} = q{sub(i + b)}·k{sub(j + b)} = {terms} = **{score}**")
    root = num(math.sqrt(d_k), 0 if math.isqrt(d_k) ** 2 == d_k else d)
    p = places(np.array(step.scaled), d)
    scaled = sep.join(num(s, p) for s in step.scaled)
    lines.append(t("hand_check.row_scaled", lang, root=root, values=scaled))
    hidden = [f"k{sub(j + b)}" for j in range(n) if not step.allowed[j]]
    if hidden:
        lines.append(t("hand_check.row_masked", lang, keys=sep.join(hidden)))
    exps = sep.join(
        f"e^{exponent(round(s - step.top, 9))} = {num(e, d)}"
        for s, e, ok in zip(step.scaled, step.exps, step.allowed, strict=True)
        if ok
    )
    lines.append(t("hand_check.row_exp", lang, m=f"m{sub(i + b)}", top=num(step.top, p), exps=exps))
    weights = ", ".join(num(a, d) for a in step.weights)
    lines.append(
        t("hand_check.row_weights", lang, total=num(step.total, d), a=f"a{sub(i + b)}", w=weights)
    )
    mix = " + ".join(f"{num(a, d)}·v{sub(j + b)}" for j, a in enumerate(step.weights) if a)
    out = ", ".join(num(o, d) for o in step.output)
    lines.append(f"o{sub(i + b)} = {mix} = [{out}]")
    return lines


# A worksheet is a list of blocks, drawn as Markdown (the page) or HTML (the printed sheet):
# ("h", text) heading, ("p", text) paragraph, ("table", caption, header, rows), ("list", lines),
# ("blank", caption, header, row labels) an empty grid to fill in, ("worked", heading, lines) one
# query worked out, ("answers",) the answer key starts here, on a page of its own.


def _table(name: str, M: np.ndarray, rows, decimals: int, base: int):
    header = ["", *indices(M.shape[1], base)]
    body = [[label, *(num(v, places(M, decimals)) for v in row)] for label, row in zip(rows, M)]
    return ("table", f"{name} [{M.shape[0]} × {M.shape[1]}]", header, body)


def worksheet_blocks(matrices, trace, tokens, decimals: int, base: int, lang: str) -> list:
    """The questions (inputs, the table of e^x, what to compute, empty grids), then the key."""
    steps, d_v = steps_of(trace), trace.V.shape[-1]
    causal = not all(all(step.allowed) for step in steps)
    token_rows = [row_label(i, token, base) for i, token in enumerate(tokens)]
    d_rows = [shown_index(r, base) for r in range(matrices["X"].shape[1])]
    setup = t(
        "hand_check.ws_setup",
        lang,
        d_k=trace.Q.shape[-1],
        d_v=d_v,
        mask=t(f"hand_check.ws_mask_{causal}", lang),
    )
    blocks = [("h", t("hand_check.ws_header", lang)), ("p", setup)]
    for name in MATRIX_NAMES:
        rows = token_rows if name == "X" else d_rows
        blocks.append(_table(name, matrices[name], rows, decimals, base))
    exp_rows = [[f"e^{x}", value] for x, value in exp_table(steps)]
    blocks.append(("table", t("hand_check.ws_exp_table", lang), ["x", "eˣ"], exp_rows))
    blocks.append(
        (
            "list",
            [
                t(f"hand_check.ws_task_{k}", lang)
                for k in ("qkv", "s", "mask", "a", "o")
                if k != "mask" or causal
            ],
        )
    )
    key_cols = indices(N, base)
    blocks.append(("blank", "A", ["", *key_cols], token_rows))
    blocks.append(("blank", "O", ["", *indices(d_v, base)], token_rows))
    blocks += [("answers",), ("h", t("hand_check.ws_key", lang))]
    named = (
        ("Q", trace.Q[0]),
        ("K", trace.K[0]),
        ("V", trace.V[0]),
        ("S = Q Kᵀ", trace.S[0]),
        ("S / √d_k", trace.S_scaled[0]),
        ("A", trace.A[0]),
        ("O = A V", trace.O[0]),
    )
    for name, M in named:
        blocks.append(_table(name, M, token_rows, decimals, base))
    for step in steps:
        lines = worked_row(step, tokens, trace, decimals, base, lang)
        blocks.append(("worked", lines[0], lines[1:]))
    return blocks


def worksheet_markdown(blocks) -> str:
    """The answer key's blocks as Markdown: the worked solution shown on the page."""
    out = []
    for block in blocks[[b[0] for b in blocks].index("answers") + 1 :]:
        kind = block[0]
        if kind == "h":
            out += [f"#### {block[1]}", ""]
        elif kind == "p":
            out += [block[1], ""]
        elif kind == "list":
            out += [*(f"- {line}" for line in block[1]), ""]
        elif kind == "worked":
            out += [f"**{block[1]}**", "", *(f"- {line}" for line in block[2]), ""]
        elif kind == "table":
            _, caption, header, rows = block
            out += [f"**{caption}**", "", "| " + " | ".join(header) + " |"]
            out += ["|---" * len(header) + "|", *("| " + " | ".join(r) + " |" for r in rows), ""]
    return "\n".join(out)


def worksheet_csv(matrices, trace, base: int = 0) -> str:
    """All matrices of the example in one CSV: a name column, a row column (numbered from
    ``base``), then the values."""
    buffer = io.StringIO()
    named = {
        **matrices,
        "Q": trace.Q[0],
        "K": trace.K[0],
        "V": trace.V[0],
        "S": trace.S[0],
        "S_scaled": trace.S_scaled[0],
        "A": trace.A[0],
        "O": trace.O[0],
    }
    width = max(M.shape[1] for M in named.values())
    buffer.write("matrix,row," + ",".join(f"c{c}" for c in range(width)) + "\n")
    for name, M in named.items():
        for i, row in enumerate(M):
            buffer.write(f"{name},{i + base}," + ",".join(repr(float(v)) for v in row) + "\n")
    return buffer.getvalue()


@dataclass(frozen=True)
class AnswerCheck:
    """The outcome of comparing a typed row with the right one."""

    problem: str | None  # "count" or "not_a_number" when the text could not be compared
    detail: dict  # parameters for the message
    wrong: tuple  # (index, typed, expected, difference) for each entry that is off

    @property
    def right(self) -> bool:
        return self.problem is None and not self.wrong


def typed_numbers(text: str) -> list[str]:
    """The pieces of a typed row: split at spaces and (half- or full-width) commas or semicolons."""
    return [p for p in re.split(r"[\s,;，；、]+", text.strip().replace("−", "-")) if p]


def check_answer(text: str, expected: np.ndarray, tolerance: float = 0.01) -> AnswerCheck:
    """Compare the numbers typed in ``text`` with ``expected``, entry by entry: the one check for
    every matrix the page can check."""
    pieces = typed_numbers(text)
    if len(pieces) != len(expected):
        return AnswerCheck("count", {"k": len(expected), "got": len(pieces)}, ())
    typed = []
    for piece in pieces:
        try:
            value = float(piece)
        except ValueError:
            return AnswerCheck("not_a_number", {"text": piece}, ())
        if not math.isfinite(value):
            return AnswerCheck("not_a_number", {"text": piece}, ())
        typed.append(value)
    wrong = tuple(
        (j, typed[j], float(expected[j]), abs(typed[j] - float(expected[j])))
        for j in range(len(expected))
        if abs(typed[j] - float(expected[j])) > tolerance
    )
    return AnswerCheck(None, {"k": len(expected), "typed": tuple(typed)}, wrong)
