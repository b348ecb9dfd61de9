"""Parsing what a learner typed, checking answers, and the worksheet's numbers."""

import os
import re
import shutil
import subprocess

import numpy as np
import pytest

from ui import handcheck


@pytest.mark.parametrize(
    "text, ok",
    [
        ("1", True),
        (" −2.5 ", True),
        ("1e3", True),
        ("abc", False),
        ("", False),
        ("nan", False),
        ("inf", False),
        ("1e400", False),
    ],
)
def test_parse_matrix_cells(text, ok):
    values, problem = handcheck.parse_matrix("X", [["0", text]])
    if ok:
        assert problem is None and values.shape == (1, 2)
    else:
        assert values is None and problem.matrix == "X" and (problem.row, problem.col) == (0, 1)
        assert problem.text == text


def test_check_answer_within_tolerance():
    expected = np.array([0.25, 0.5, 0.25])
    assert handcheck.check_answer("0.25, 0.5, 0.25", expected).right
    assert handcheck.check_answer("0.255 0.495 0.25", expected).right
    check = handcheck.check_answer("0.25 0.6 0.15", expected)
    assert [j for j, *_ in check.wrong] == [1, 2]
    assert check.wrong[0][3] == pytest.approx(0.1)
    assert handcheck.check_answer("0.25 0.5", expected).problem == "count"
    assert handcheck.check_answer("0.25 x 0.25", expected).problem == "not_a_number"


# the example worked by hand in tests/core/test_hand_example.py
HAND_EXAMPLE = {
    "X": np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
    "W_Q": np.eye(2),
    "W_K": np.eye(2),
    "W_V": np.array([[1.0, 2.0], [3.0, 4.0]]),
}


def test_worksheet_contains_every_step_with_the_right_numbers():
    M = HAND_EXAMPLE
    trace = handcheck.hand_trace(M)
    sheet = handcheck.worksheet_markdown(M, trace, ("a", "b", "c"), 2, "en")
    assert "0.4011" in sheet and "0.1978" in sheet  # row 0 of A
    assert "**2.5989**" in sheet and "**4.0000**" in sheet  # output row 0
    assert "S₂,₂ = q₂·k₂ = 1.00·1.00 + 1.00·1.00 = **2.00**" in sheet
    csv = handcheck.worksheet_csv(M, trace)
    assert csv.splitlines()[0] == "matrix,row,c0,c1,c2"  # S and A are 3 wide
    assert any(line.startswith("A,0,0.4011") for line in csv.splitlines())


def test_worksheet_latex_has_every_matrix_and_escapes_text():
    M = HAND_EXAMPLE
    trace = handcheck.hand_trace(M)
    tex = handcheck.worksheet_latex(M, trace, ("$x_1", "a&b", "我"), 2, "zh")
    assert tex.startswith(r"\documentclass{article}") and r"\usepackage{ctex}" in tex
    assert tex.count(r"\begin{bmatrix}") == tex.count(r"\end{bmatrix}") == 10
    assert r"W_{V} = \begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix}" in tex
    assert "(0.4011, 0.1978, 0.4011)" in tex  # row 0 of A, as worked by hand
    assert r"\$x\_1, a\&b, 我" in tex
    assert tex.count("{") == tex.count("}")


# what pdflatex needs to build each worksheet: file it looks up -> Debian package that ships it.
# .ci/run installs them all; the Chinese worksheet takes ctex's pdflatex mode with the CJK
# package's AR PL SungtiL GB font (~78 MB download); xelatex would add texlive-xetex and with it
# texlive-latex-extra (~65 MB more download, ~215 MB more on disk).
LATEX_NEEDS = {
    "en": {"amsmath.sty": "texlive-latex-base"},
    "zh": {
        "amsmath.sty": "texlive-latex-base",
        "ctex.sty": "texlive-lang-chinese",
        "CJKutf8.sty": "latex-cjk-common",
        "c70gbsn.fd": "latex-cjk-chinese-arphic-gbsn00lp",
    },
}


def _latex_missing(lang):
    """What the worksheet test needs and does not find: pdflatex, the LaTeX files, and in CI
    pdftotext (elsewhere the PDF's text is read back only where pdftotext is installed)."""
    missing = []
    if os.environ.get("CI") and not shutil.which("pdftotext"):
        missing.append("pdftotext (poppler-utils)")
    if not shutil.which("pdflatex") or not shutil.which("kpsewhich"):
        return ["pdflatex (texlive-latex-base)", *missing]
    for name, package in LATEX_NEEDS[lang].items():
        found = subprocess.run(["kpsewhich", name], capture_output=True, text=True, timeout=60)
        if not found.stdout.strip():
            missing.append(f"{name} ({package})")
    return missing


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_worksheet_latex_compiles(lang, tmp_path):
    """pdflatex builds each language's worksheet into a PDF that reads back with its numbers and
    tokens. In CI (CI=1, set by .ci/run, which installs everything) a missing tool fails the
    test instead of skipping it."""
    missing = _latex_missing(lang)
    if missing:
        if os.environ.get("CI"):
            pytest.fail(
                f"CI must compile the {lang} worksheet; not installed: {', '.join(missing)}"
            )
        pytest.skip(f"not installed: {', '.join(missing)}")
    tokens = ("我", "喜欢", "你") if lang == "zh" else ("$x_1", "a&b", "50%")
    tex = handcheck.worksheet_latex(
        HAND_EXAMPLE, handcheck.hand_trace(HAND_EXAMPLE), tokens, 2, lang
    )
    (tmp_path / "worksheet.tex").write_text(tex, encoding="utf-8")
    run = subprocess.run(
        [
            "pdflatex",
            "-interaction=nonstopmode",
            "-halt-on-error",
            "-no-shell-escape",
            "worksheet.tex",
        ],
        cwd=tmp_path,
        capture_output=True,
        timeout=120,
    )
    log_file = tmp_path / "worksheet.log"
    log = log_file.read_text(encoding="utf-8", errors="replace") if log_file.exists() else ""
    assert run.returncode == 0, (log or run.stdout.decode(errors="replace"))[-3000:]
    errors = [line for line in log.splitlines() if line.startswith("!")]
    assert not errors, errors
    written = re.search(r"Output written on worksheet\.pdf \((\d+) pages?", log)
    assert written and int(written.group(1)) > 0, log[-2000:]
    pdf = tmp_path / "worksheet.pdf"
    assert pdf.read_bytes()[:5] == b"%PDF-" and pdf.stat().st_size > 1000
    if not shutil.which("pdftotext"):
        return
    text = subprocess.run(
        ["pdftotext", "-enc", "UTF-8", "worksheet.pdf", "-"],
        cwd=tmp_path,
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout.decode("utf-8")
    words = "".join(text.split())  # pdftotext breaks matrices and CJK lines apart
    assert {"en": "Self-attentionworksheet", "zh": "自注意力计算单"}[lang] in words, text[:500]
    shown = ("我", "喜欢", "你") if lang == "zh" else ("$x", "a&b", "50%")  # \_ is a rule
    assert all(token in words for token in shown), text[:500]
    assert "0.4011" in words and "0.1978" in words  # row 0 of A
