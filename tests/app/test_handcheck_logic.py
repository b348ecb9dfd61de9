"""Parsing what a learner typed, checking answers, and the worksheet's numbers."""

import os
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


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_worksheet_latex_compiles(lang, tmp_path):
    """pdflatex builds the worksheet into a PDF (CI installs texlive-latex-base). The Chinese one
    needs ctex (texlive-lang-chinese, ~1 GB): it is compiled where that is installed."""
    if shutil.which("pdflatex") is None:
        if os.environ.get("CI"):
            pytest.fail("CI installs texlive-latex-base for this test")
        pytest.skip("pdflatex is not installed")
    tokens = ("$x_1", "a&b", "50%")
    if lang == "zh":
        found = subprocess.run(["kpsewhich", "ctex.sty"], capture_output=True, text=True)
        if not found.stdout.strip():
            pytest.skip("ctex is not installed (texlive-lang-chinese)")
        tokens = ("我", "喜欢", "你")
    tex = handcheck.worksheet_latex(
        HAND_EXAMPLE, handcheck.hand_trace(HAND_EXAMPLE), tokens, 2, lang
    )
    (tmp_path / "worksheet.tex").write_text(tex, encoding="utf-8")
    engine = "xelatex" if lang == "zh" else "pdflatex"
    run = subprocess.run(
        [engine, "-interaction=nonstopmode", "-halt-on-error", "worksheet.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout[-3000:]
    assert (tmp_path / "worksheet.pdf").stat().st_size > 1000
