"""The hand check: small integer matrices, parsing typed cells, the worksheet, answer checks."""

import io
import math
import re
from dataclasses import dataclass

import numpy as np

import core
from ui.i18n import t
from ui.numbers import factor, num, sub

N = 3  # tokens in the hand example
HAND_TOKENS = {"en": ("I", "love", "you"), "zh": ("我", "喜欢", "你")}
MATRIX_NAMES = ("X", "W_Q", "W_K", "W_V")


def default_matrices(d_model: int) -> dict[str, np.ndarray]:
    """Small whole numbers: X in {0, 1, 2}, weights in {-1, 0, 1, 2}; the same for every visit."""
    rng = np.random.default_rng(100 + d_model)
    return {
        "X": rng.integers(0, 3, (N, d_model)).astype(float),  # [3, d_model]
        "W_Q": rng.integers(-1, 3, (d_model, d_model)).astype(float),  # [d_model, d_k]
        "W_K": rng.integers(-1, 3, (d_model, d_model)).astype(float),  # [d_model, d_k]
        "W_V": rng.integers(-1, 3, (d_model, d_model)).astype(float),  # [d_model, d_v]
    }


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


def hand_trace(matrices: dict[str, np.ndarray]) -> core.AttentionTrace:
    """One head, no positional encoding, W_O = I so that O is the head's output."""
    d_model = matrices["X"].shape[1]
    W = core.Weights(
        W_Q=matrices["W_Q"],
        W_K=matrices["W_K"],
        W_V=matrices["W_V"],
        W_O=np.eye(matrices["W_V"].shape[1]),
    )
    trace = core.attention(matrices["X"], W, n_heads=1)
    assert trace.output.shape == (N, d_model)
    return trace


def _table(M: np.ndarray, decimals: int, row_names=None) -> str:
    head = "| | " + " | ".join(str(c) for c in range(M.shape[1])) + " |"
    rule = "|---" * (M.shape[1] + 1) + "|"
    names = row_names or [str(i) for i in range(M.shape[0])]
    body = [
        "| " + names[i] + " | " + " | ".join(num(v, decimals) for v in M[i]) + " |"
        for i in range(M.shape[0])
    ]
    return "\n".join([head, rule, *body])


def worksheet_markdown(matrices, trace, tokens, decimals: int, lang: str) -> str:
    """Every arithmetic step of the n = 3 example, as Markdown for the page and the download."""
    d = 4 if decimals < 4 else decimals
    Q, K, V = trace.Q[0], trace.K[0], trace.V[0]
    d_k = Q.shape[1]
    out = [f"### {t('ws_header', lang)}", ""]
    for name in MATRIX_NAMES:
        rows = list(tokens) if name == "X" else None
        out += [
            f"**{name}**",
            "",
            _table(matrices[name], 0 if _whole(matrices[name]) else 2, rows),
            "",
        ]
    for label, M, W in (("Q", Q, "W_Q"), ("K", K, "W_K"), ("V", V, "W_V")):
        out += [f"#### {label} = X {W}", ""]
        for i in range(N):
            for c in range(M.shape[1]):
                terms = " + ".join(
                    f"{factor(matrices['X'][i, r], 0)}·{factor(matrices[W][r, c], 0)}"
                    for r in range(matrices["X"].shape[1])
                )
                out.append(f"- {label}{sub(i, c)} = {terms} = **{num(M[i, c], 2)}**")
        out.append("")
    out += [f"#### {t('ws_scores', lang)}", ""]
    for i in range(N):
        for j in range(N):
            terms = " + ".join(f"{factor(Q[i, c], 2)}·{factor(K[j, c], 2)}" for c in range(d_k))
            S_ij = num(trace.S[0, i, j], 2)
            out.append(f"- S{sub(i, j)} = q{sub(i)}·k{sub(j)} = {terms} = **{S_ij}**")
    out += [
        "",
        f"#### {t('ws_scaled', lang, d_k=d_k, root=num(math.sqrt(d_k), d))}",
        "",
        _table(trace.S_scaled[0], d),
        "",
        f"#### {t('ws_softmax', lang)}",
        "",
    ]
    for i in range(N):
        row = trace.S_scaled[0, i]
        m = float(row.max())
        exps = np.exp(row - m)
        out.append(
            f"- {t('focus_softmax', lang, i=i)} ({tokens[i]}): m = {num(m, d)}; "
            + ", ".join(
                f"exp({num(row[j], d)} − {num(m, d)}) = {num(exps[j], d)}" for j in range(N)
            )
            + f"; Σ = {num(exps.sum(), d)} → a{sub(i)} = ["
            + ", ".join(num(a, d) for a in trace.A[0, i])
            + "]"
        )
    out += ["", f"#### {t('ws_output', lang)}", ""]
    for i in range(N):
        for c in range(V.shape[1]):
            terms = " + ".join(f"{num(trace.A[0, i, j], d)}·{factor(V[j, c], 2)}" for j in range(N))
            out.append(f"- O{sub(i, c)} = {terms} = **{num(trace.output[i, c], d)}**")
    return "\n".join(out) + "\n"


def _whole(M: np.ndarray) -> bool:
    return bool(np.all(M == np.round(M)))


def worksheet_csv(matrices, trace) -> str:
    """All matrices of the example in one CSV: a name column, a row column, then the values."""
    buffer = io.StringIO()
    named = {
        **matrices,
        "Q": trace.Q[0],
        "K": trace.K[0],
        "V": trace.V[0],
        "S": trace.S[0],
        "S_scaled": trace.S_scaled[0],
        "A": trace.A[0],
        "O": trace.output,
    }
    width = max(M.shape[1] for M in named.values())
    buffer.write("matrix,row," + ",".join(f"c{c}" for c in range(width)) + "\n")
    for name, M in named.items():
        for i, row in enumerate(M):
            buffer.write(f"{name},{i}," + ",".join(repr(float(v)) for v in row) + "\n")
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


def check_answer(text: str, expected: np.ndarray, tolerance: float = 0.01) -> AnswerCheck:
    """Compare the numbers typed in ``text`` with ``expected``, entry by entry."""
    pieces = [p for p in re.split(r"[\s,;，；、]+", text.strip().replace("−", "-")) if p]
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
    return AnswerCheck(None, {"k": len(expected)}, wrong)


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_text(text: str) -> str:
    """Plain text that LaTeX prints literally."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))


def _bmatrix(M: np.ndarray, decimals: int) -> str:
    rows = [" & ".join(f"{v:.{decimals}f}" for v in row) for row in M]
    return r"\begin{bmatrix} " + r" \\ ".join(rows) + r" \end{bmatrix}"


def worksheet_latex(matrices, trace, tokens, decimals: int, lang: str) -> str:
    """The worksheet as a LaTeX document: pdflatex or xelatex; the Chinese one needs ctex, and
    under pdflatex the CJK package's AR PL SungtiL GB font (latex-cjk-chinese-arphic-gbsn00lp)."""
    d = max(decimals, 4)
    Q, K, V, A = trace.Q[0], trace.K[0], trace.V[0], trace.A[0]
    d_k = Q.shape[1]
    lines = [r"\documentclass{article}", r"\usepackage{amsmath}"]
    if lang == "zh":
        # ctex's own (Fandol) fonts need xelatex or lualatex; pdflatex takes a CJK Type 1 font
        lines += [
            r"\usepackage{iftex}",
            r"\ifPDFTeX",
            r"\usepackage[fontset=none]{ctex}",
            r"\renewcommand{\CJKrmdefault}{gbsn}",
            r"\renewcommand{\CJKsfdefault}{gbsn}",
            r"\renewcommand{\CJKttdefault}{gbsn}",
            r"\else",
            r"\usepackage{ctex}",
            r"\fi",
        ]
    lines += [
        r"\begin{document}",
        rf"\section*{{{latex_text(t('ws_header', lang))}}}",
        "Tokens: " + ", ".join(latex_text(token) for token in tokens),
        "",
    ]
    for name in MATRIX_NAMES:
        places = 0 if _whole(matrices[name]) else 2
        symbol = name if "_" not in name else f"W_{{{name[-1]}}}"  # W_Q -> W_{Q}
        lines.append(rf"\[ {symbol} = {_bmatrix(matrices[name], places)} \]")
    for label, M, W in (("Q", Q, "W_Q"), ("K", K, "W_K"), ("V", V, "W_V")):
        lines.append(rf"\[ {label} = X W_{{{W[-1]}}} = {_bmatrix(M, 2)} \]")
    lines.append(rf"\[ S = Q K^\top = {_bmatrix(trace.S[0], 2)} \]")
    lines.append(rf"\[ \frac{{S}}{{\sqrt{{{d_k}}}}} = {_bmatrix(trace.S_scaled[0], d)} \]")
    for i in range(N):
        row = trace.S_scaled[0, i]
        exps = np.exp(row - row.max())
        terms = " + ".join(f"e^{{{row[j] - row.max():.{d}f}}}" for j in range(N))
        lines.append(
            rf"\[ a_{{{i}}} = \frac{{(e^{{s_{{{i}j}} - m}})_j}}{{{terms}}} = "
            rf"\frac{{({', '.join(f'{e:.{d}f}' for e in exps)})}}{{{exps.sum():.{d}f}}}"
            rf" = ({', '.join(f'{a:.{d}f}' for a in A[i])}) \]"
        )
    lines.append(rf"\[ O = A V = {_bmatrix(trace.output, d)} \]")
    lines += [r"\end{document}", ""]
    return "\n".join(lines)
