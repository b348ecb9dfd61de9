"""The hand check page: edits change the result, answers are checked entry by entry."""

import math

import numpy as np
import pytest

from tests.app.helpers import page_text, run_app
from ui import handcheck


def _by_hand(M):
    """Attention for the n = 3 example the slow way: loops over rows, math.exp, no core."""
    X, W_Q, W_K, W_V = (M[name].tolist() for name in ("X", "W_Q", "W_K", "W_V"))
    d = len(X[0])

    def mat(A, B):
        return [
            [sum(A[i][r] * B[r][c] for r in range(len(B))) for c in range(len(B[0]))]
            for i in range(len(A))
        ]

    Q, K, V = mat(X, W_Q), mat(X, W_K), mat(X, W_V)
    A, O = [], []
    for i in range(3):
        s = [sum(Q[i][c] * K[j][c] for c in range(d)) / math.sqrt(d) for j in range(3)]
        e = [math.exp(x - max(s)) for x in s]
        a = [x / sum(e) for x in e]
        A.append(a)
        O.append([sum(a[j] * V[j][c] for j in range(3)) for c in range(d)])
    return np.array(A), np.array(O)


def test_right_answer_accepted_wrong_one_flagged():
    at = run_app("hand-check", lang="en")
    assert not at.exception
    A, O = _by_hand(handcheck.default_matrices(2))
    at.selectbox(key="answer_matrix").set_value("O")
    at.selectbox(key="answer_row").set_value(1)
    at.text_input(key="answer_text").set_value(", ".join(f"{v:.3f}" for v in O[1])).run()
    assert any("All 2 entries are right" in s.value for s in at.success)

    wrong = O[1].copy()
    wrong[0] += 0.5
    at.text_input(key="answer_text").set_value(" ".join(f"{v:.6f}" for v in wrong)).run()
    assert not at.success
    message = at.error[0].value
    assert "1 of 2 entries is off" in message and "entry 0" in message and "0.5000" in message


def test_answers_in_chinese_with_full_width_commas():
    at = run_app("hand-check", lang="zh")
    A, _ = _by_hand(handcheck.default_matrices(2))
    at.text_input(key="answer_text").set_value("，".join(f"{v:.4f}" for v in A[0])).run()
    assert any("全部 3 个数都对" in s.value for s in at.success)
    at.text_input(key="answer_text").set_value("0.1 abc 0.3").run()
    assert any("“abc” 不是一个数" in w.value for w in at.warning)
    at.text_input(key="answer_text").set_value("0.1 0.3").run()
    assert any("需要 3 个数，你输入了 2 个" in w.value for w in at.warning)


def test_an_edit_changes_the_result():
    at = run_app("hand-check", lang="en")
    before = page_text(at)
    edited = {name: M.copy() for name, M in at.session_state["hand_matrices"].items()}
    edited["X"][0, 0] = 5.0
    at.session_state["hand_matrices"] = edited
    at.run()
    assert not at.exception
    after = page_text(at)
    assert after != before
    A, O = _by_hand(edited)
    assert f"**{O[0, 0]:.4f}**" in after  # the worksheet follows the edited X
    at.selectbox(key="answer_row").set_value(2)
    at.text_input(key="answer_text").set_value(" ".join(f"{v:.4f}" for v in A[2])).run()
    assert at.success, "the answer is checked against the edited matrices"


@pytest.mark.parametrize("d_model", [3, 4])
def test_wider_examples(d_model):
    at = run_app("hand-check", lang="en")
    choice = next(w for w in at.get("button_group") if w.key == "hand_d")
    choice.set_value(d_model).run()
    assert not at.exception
    assert f"[3 × {d_model}]" in page_text(at)
