"""The hand check page: the chosen example on screen, the mask and d_v options, the Check button,
numbering from 1, and edits that change the result."""

import numpy as np
import pytest

from core.lessons import hand_example
from tests.support.app import page_text, run_app
from tests.support.oracles import by_hand


def _table(at, caption_index):
    """st.table number ``caption_index`` as strings: 0 is the e^x table, 1 is A, 2 is O."""
    return at.table[caption_index].value


def _check(at, text, matrix="A", row=0):
    at.selectbox(key="answer_matrix").set_value(matrix)
    at.selectbox(key="answer_row").set_value(row)
    at.text_input(key="answer_text").set_value(text)
    at.button(key="answer_check").click().run()
    return at


def test_the_default_example_is_on_the_first_screen():
    at = run_app("hand-check", lang="en", decimals=4)
    assert not at.exception
    text = page_text(at)
    exps = _table(at, 0)
    assert list(exps.columns) == ["e^0", "e^−0.5", "e^−1"]
    assert exps.iloc[0].tolist() == ["1.0000", "0.6065", "0.3679"]
    _, A, O = by_hand(hand_example.example(4))
    shown_A = _table(at, 1).to_numpy().astype(float)
    np.testing.assert_allclose(shown_A, A, atol=5e-5)
    assert _table(at, 2).shape == (3, 4)
    assert "÷ √d_k = ÷ 2: 1.0000, 1.5000, 0.5000" in text  # the third query's scaled scores
    assert "The loop and the matrices agree" in text
    assert "s₀,₂ = q₀·k₂ = 0·1 + 1·1 + 0·0 + 1·1 = **2**" in text  # numbered from 0 by default


def test_the_causal_toggle_zeroes_the_masked_cells():
    at = run_app("hand-check", lang="en", decimals=4)
    before = _table(at, 1).to_numpy().astype(float)
    at.toggle(key="hand_causal").set_value(True).run()
    assert not at.exception
    after = _table(at, 1).to_numpy().astype(float)
    _, A, _ = by_hand(hand_example.example(4), causal=True)
    np.testing.assert_allclose(after, A, atol=5e-5)
    assert after[np.triu_indices(3, 1)].tolist() == [0.0, 0.0, 0.0]
    assert not np.allclose(before, after)
    assert "masked (after this query, weight 0): k₁, k₂" in page_text(at)


@pytest.mark.parametrize("d_v", [2, 3])
def test_d_v_changes_the_shapes_of_V_and_O(d_v):
    at = run_app("hand-check", lang="en")
    choice = next(w for w in at.get("button_group") if w.key == "hand_dv")
    choice.set_value(d_v).run()
    assert not at.exception
    text = page_text(at)
    assert f"W_V [3 × {d_v}]" in text and "Q, K [3 × 4]" in text
    assert _table(at, 2).shape == (3, d_v)
    _, _, O = by_hand(hand_example.example(d_v))
    np.testing.assert_allclose(_table(at, 2).to_numpy().astype(float), O, atol=5e-3)


def test_check_button_says_right_or_wrong_with_the_worked_row():
    at = run_app("hand-check", lang="en")
    _, A, O = by_hand(hand_example.example(4))
    at.text_input(key="answer_text").set_value("1 2 3").run()
    assert not at.success and not at.error  # nothing is judged before Check is pressed
    _check(at, ", ".join(f"{v:.3f}" for v in O[1]), "O", 1)
    assert any("Correct. All 4 entries are right" in s.value for s in at.success)
    wrong = A[2].copy()
    wrong[0] += 0.5
    _check(at, " ".join(f"{v:.4f}" for v in wrong), "A", 2)
    assert not at.success
    message = at.error[0].value
    assert "Incorrect. 1 of 3 entries is off" in message and "entry 0" in message
    assert "The worked row:" in message and "Query q₂ (you)" in message
    assert "a₂ = each e^(x − m) ÷ Σ = [0.31, 0.51, 0.19]" in message


def test_check_in_chinese_numbered_from_one():
    at = run_app("hand-check", lang="zh", base=1)
    assert at.button(key="answer_check").label == "检查"
    _, A, _ = by_hand(hand_example.example(4))
    _check(at, "，".join(f"{v:.4f}" for v in A[0]))
    assert any("正确。全部 3 个数都对" in s.value for s in at.success)
    _check(at, "0.2 0.2 0.6", "A", 1)
    message = at.error[0].value
    assert message.startswith("不正确。3 个数中有")
    assert "元素 1" in message and "查询 q₂（喜欢）" in message
    _check(at, "0.1 abc 0.3")
    assert any("“abc”不是一个数" in w.value for w in at.warning)


def test_numbering_from_one_reaches_every_label():
    at = run_app("hand-check", lang="en", base=1)
    assert list(_table(at, 1).index) == ["1 · I", "2 · love", "3 · you"]
    assert list(_table(at, 1).columns) == ["1", "2", "3"]
    text = page_text(at)
    assert "Query q₁ (I)" in text and "s₁,₃ = q₁·k₃" in text and "q₀" not in text
    assert "| 1 · I | 0 | 1 | 0 | 1 |" in text  # Q in the worked solution
    assert at.selectbox(key="answer_row").options == ["1 · I", "2 · love", "3 · you"]


def test_an_edit_changes_the_result():
    at = run_app("hand-check", lang="en", decimals=4)
    before = page_text(at)
    edited = {name: M.copy() for name, M in at.session_state["hand_matrices"].items()}
    edited["X"][0, 0] = 5.0
    at.session_state["hand_matrices"] = edited
    at.run()
    assert not at.exception
    after = page_text(at)
    assert after != before
    _, A, O = by_hand(edited)
    np.testing.assert_allclose(_table(at, 1).to_numpy().astype(float), A, atol=5e-5)
    _check(at, " ".join(f"{v:.4f}" for v in A[2]), "A", 2)
    assert at.success, "the answer is checked against the edited matrices"


def test_a_shared_link_keeps_d_v_and_the_mask():
    at = run_app("hand-check", lang="en", hand_dv=2, hand_causal="true")
    assert not at.exception
    assert at.session_state["hand_dv"] == 2 and at.session_state["hand_causal"] is True
    assert at.session_state["hand_matrices"]["W_V"].shape[1] == 2
