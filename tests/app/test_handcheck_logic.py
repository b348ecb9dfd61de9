"""Parsing what a learner typed, checking answers, and the worksheet's numbers."""

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
