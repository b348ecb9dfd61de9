"""The hand check page: the chosen example on screen, the mask and d_v options, the Check button,
numbering from 1, and edits that change the result."""

import math

import numpy as np
import pytest

from core.lessons import hand_example
from tests.support.app import page_text, run_app
from tests.support.numbers import assert_printed, numbers
from tests.support.oracles import by_hand

INPUTS = 4  # X, W_Q, W_K and W_V come first, as plain tables until the learner edits them


def _table(at, caption_index):
    """st.table number ``caption_index`` after the inputs, as strings: 0 is the e^x table, 1 is
    A, 2 is O."""
    return at.table[INPUTS + caption_index].value


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
    assert "s₁,₃ = q₁·k₃ = 0·1 + 1·1 + 0·0 + 1·1 = **2**" in text  # numbered from 1 by default
    from_zero = page_text(run_app("hand-check", lang="en", decimals=4, base="0"))
    assert "s₀,₂ = q₀·k₂ = 0·1 + 1·1 + 0·0 + 1·1 = **2**" in from_zero  # base=0: from 0


def test_the_causal_toggle_zeroes_the_masked_cells():
    at = run_app("hand-check", lang="en", decimals=4, base="0")
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
    at = run_app("hand-check", lang="en", base="0")
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
    assert "Incorrect. 1 of 3 entries is off" in message and "number 1: " in message
    before = page_text(at)  # the solution is asked for, not given
    at.button(key="answer_working").click().run()
    working = page_text(at)
    for line in ("**Query q₂ (you)**", "a₂ = each e^(x − m) ÷ Σ = [0.31, 0.51, 0.19]"):
        assert working.count(line) == before.count(line) + 1, line


def test_check_in_chinese_numbered_from_one():
    at = run_app("hand-check", lang="zh", base=1)
    assert at.button(key="answer_check").label == "检查"
    _, A, _ = by_hand(hand_example.example(4))
    _check(at, "，".join(f"{v:.4f}" for v in A[0]))
    assert any("正确。全部 3 个数都对" in s.value for s in at.success)
    _check(at, "0.2 0.2 0.6", "A", 1)
    message = at.error[0].value
    assert message.startswith("不正确。3 个数中有")
    assert "第 1 个数：" in message and "查询 q₂（喜欢）" not in message
    before = page_text(at).count("**查询 q₂（喜欢）**")
    at.button(key="answer_working").click().run()
    assert at.button(key="answer_working").label == "显示完整过程"
    assert page_text(at).count("**查询 q₂（喜欢）**") == before + 1
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


def sub(*indices) -> str:
    """Subscript digits, as the page names a cell: sub(0, 2) -> '₀,₂'."""
    return ",".join(str(i) for i in indices).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def qkv_by_loop(M):
    """Q = X W_Q, K = X W_K, V = X W_V one product at a time, in plain Python."""

    def product(A, B):
        return [[sum(a[r] * B[r][c] for r in range(len(B))) for c in range(len(B[0]))] for a in A]

    X = M["X"].tolist()
    return tuple(np.array(product(X, M[name].tolist())) for name in ("W_Q", "W_K", "W_V"))


def loop_panel(at, lang: str) -> list[list[str]]:
    """Each query's box in the per-token panel: its heading, then its lines."""
    start = "**Query q" if lang == "en" else "**查询 q"
    boxes = [m.value for m in at.markdown if m.value.startswith(start)]
    return [[box.split("\n\n")[0], *(line[2:] for line in box.split("\n")[2:])] for box in boxes]


def worksheet_tables(at) -> dict[str, np.ndarray]:
    """The worked solution's tables on the page, by caption: '**Q [3 × 4]**' -> the numbers."""
    sheet = next(m.value for m in at.markdown if m.value.startswith("#### "))
    tables = {}
    for part in sheet.split("\n\n**")[1:]:
        caption, _, body = part.partition("**\n\n")
        rows = [line for line in body.splitlines() if line.startswith("| ") and "·" in line]
        if rows and "[" in caption:
            cells = [[c.strip() for c in row.strip("|").split("|")[1:]] for row in rows]
            tables[caption.split(" [")[0]] = np.array([[numbers(c)[0] for c in r] for r in cells])
    return tables


def assert_worked_row(lines, i, Q, K, V, A, O, causal, d, base, what):
    """One query's box, term by term: each product q_ic·k_jc and s_ij, √d_k and s_ij/√d_k,
    which keys are masked, m and each e^(x − m), Σ and a_i, then each a_ij beside v_j and o_i."""
    n, d_k = len(Q), Q.shape[1]
    allowed = [j <= i or not causal for j in range(n)]
    assert f"q{sub(i + base)}" in lines[0], what
    for j in range(n):
        terms = [x for c in range(d_k) for x in (Q[i, c], K[j, c])]
        assert_printed(numbers(lines[1 + j]), [*terms, Q[i] @ K[j]], d, f"{what}: s_{i}{j}")
    rest = lines[1 + n :]
    scaled = [float(Q[i] @ K[j]) / math.sqrt(d_k) for j in range(n)]
    assert_printed(numbers(rest.pop(0)), [math.sqrt(d_k), *scaled], d, f"{what}: ÷ √d_k")
    if not all(allowed):
        masked = rest.pop(0)
        assert numbers(masked) == [0], masked
        assert all((f"k{sub(j + base)}" in masked) != allowed[j] for j in range(n)), masked
    m = max(s for s, ok in zip(scaled, allowed, strict=True) if ok)
    exps = [
        x for s, ok in zip(scaled, allowed, strict=True) if ok for x in (s - m, math.exp(s - m))
    ]
    assert_printed(numbers(rest.pop(0)), [m, *exps], d, f"{what}: e^(x − m)")
    total = sum(math.exp(s - m) for s, ok in zip(scaled, allowed, strict=True) if ok)
    assert_printed(numbers(rest.pop(0)), [total, *A[i]], d, f"{what}: Σ and a_i")
    kept = [A[i, j] for j in range(n) if allowed[j]]
    assert_printed(numbers(rest.pop(0)), [*kept, *O[i]], d, f"{what}: o_i")
    assert not rest, rest


@pytest.mark.parametrize(
    ("lang", "base", "causal", "decimals", "d_v"),
    [("en", 0, False, 4, 4), ("zh", 1, True, 2, 4), ("en", 1, True, 3, 3), ("zh", 0, False, 2, 2)],
)
def test_every_printed_number_of_the_hand_check_is_the_example_worked_by_hand(
    lang, base, causal, decimals, d_v
):
    """The matrix-form A and O tables, each query's box in the per-token panel (every product,
    score, ÷√d_k, e^(x − m), Σ, weight and output) and the worksheet's Q, K, V, S, S/√d_k, A and
    O tables print the chosen example worked in plain Python here (by_hand and a loop for Q, K,
    V), with the mask, d_v, numbering and decimals asked for."""
    M = hand_example.example(d_v)
    at = run_app("hand-check", lang=lang, base=base, decimals=decimals, hand_dv=d_v,
                 hand_causal=str(causal).lower())  # fmt: skip
    assert not at.exception
    S, A, O = by_hand(M, causal)
    Q, K, V = qkv_by_loop(M)
    np.testing.assert_allclose(Q @ K.T, S, atol=1e-12)  # the two hand computations agree
    for table, expected in ((_table(at, 1), A), (_table(at, 2), O)):
        assert_printed([numbers(c)[0] for c in table.to_numpy().ravel()], expected, decimals)
    boxes = loop_panel(at, lang)
    assert len(boxes) == 3
    for i, lines in enumerate(boxes):
        assert_worked_row(lines, i, Q, K, V, A, O, causal, decimals, base, f"query {i}")
    tables = worksheet_tables(at)
    expected = {"Q": Q, "K": K, "V": V, "S = Q Kᵀ": S, "S / √d_k": S / 2, "A": A, "O = A V": O}
    assert set(expected) <= set(tables), tables.keys()
    for name, values in expected.items():
        assert_printed(tables[name].ravel(), values, decimals, f"the worksheet's {name}")


def test_the_worksheet_on_the_page_works_each_query_as_the_loop_panel_does():
    """The worked solution's query boxes print the same terms, checked against the hand
    computation (Chinese, causal, numbered from 1)."""
    M = hand_example.example(4)
    at = run_app("hand-check", lang="zh", base=1, hand_causal="true")
    S, A, O = by_hand(M, True)
    Q, K, V = qkv_by_loop(M)
    sheet = next(m.value for m in at.markdown if m.value.startswith("#### "))
    boxes = [part for part in sheet.split("\n\n**查询 q")[1:]]
    assert len(boxes) == 3
    for i, box in enumerate(boxes):
        heading, _, body = box.partition("\n\n")
        lines = [f"q{heading}", *(line[2:] for line in body.splitlines() if line.startswith("- "))]
        assert_worked_row(lines, i, Q, K, V, A, O, True, 2, 1, f"the worksheet's query {i}")


def test_a_wrong_answer_prints_each_entry_off_and_the_worked_row():
    """Check with one wrong entry of o_1: the message prints that entry's index, what was typed,
    the right value and the difference, worked out here; the whole-working button then works the
    row term by term."""
    M = hand_example.example(4)
    _, A, O = by_hand(M)
    Q, K, V = qkv_by_loop(M)
    at = run_app("hand-check", lang="en", base=1, decimals=3)
    typed = O[1].round(3)
    typed[2] += 0.25
    _check(at, " ".join(f"{v:g}" for v in typed), "O", 1)
    message = at.error[0].value
    parts = message.split("\n")
    off = [line for line in parts if line.startswith("- number")]
    assert len(off) == 1
    assert_printed(numbers(off[0]), [3, typed[2], O[1, 2], typed[2] - O[1, 2]], 3, off[0])
    assert len(loop_panel(at, "en")) == 3  # the per-token panel's boxes only, so far
    at.button(key="answer_working").click().run()
    boxes = loop_panel(at, "en")
    assert len(boxes) == 4  # the answer's working comes first, before the panel
    assert_worked_row(boxes[0], 1, Q, K, V, A, O, False, 3, 1, "the worked row")


def test_edited_numbers_are_worked_term_by_term_too():
    """After an edit away from whole numbers (X₀,₀ = 0.5, W_Q₁,₂ = −1.25), each query's box
    and the A and O tables print the edited example worked by hand."""
    at = run_app("hand-check", lang="en", decimals=3, base="0")
    edited = {name: M.copy() for name, M in at.session_state["hand_matrices"].items()}
    edited["X"][0, 0], edited["W_Q"][1, 2] = 0.5, -1.25
    at.session_state["hand_matrices"] = edited
    at.run()
    assert not at.exception
    S, A, O = by_hand(edited)
    Q, K, V = qkv_by_loop(edited)
    for table, expected in ((_table(at, 1), A), (_table(at, 2), O)):
        assert_printed([numbers(c)[0] for c in table.to_numpy().ravel()], expected, 3)
    for i, lines in enumerate(loop_panel(at, "en")):
        assert_worked_row(lines, i, Q, K, V, A, O, False, 3, 0, f"edited, query {i}")


def every_matrix_by_hand(M, causal=False) -> dict[str, np.ndarray]:
    """The seven checkable matrices, by loops here: Q, K, V by qkv_by_loop, S, A, O by by_hand,
    and S / √d_k one entry at a time."""
    S, A, O = by_hand(M, causal)
    Q, K, V = qkv_by_loop(M)
    root = math.sqrt(len(Q[0]))
    scaled = np.array([[S[i][j] / root for j in range(len(S[i]))] for i in range(len(S))])
    return {"Q": Q, "K": K, "V": V, "S": S, "S_scaled": scaled, "A": A, "O": O}


HINT = {"en": "The first number that is off is number", "zh": "第一个不对的是第"}
WRONG = {"en": "Incorrect.", "zh": "不正确。"}
RIGHT = {"en": "Correct.", "zh": "正确。"}


def off_lines(at, lang):
    """The 'number j: you wrote …' lines of the wrong-answer message."""
    start = "- number" if lang == "en" else "- 第"
    return [line for line in at.error[0].value.split("\n") if line.startswith(start)]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("which", ["Q", "K", "V", "S", "S_scaled", "A", "O"])
def test_every_matrix_can_be_checked_and_a_wrong_row_names_exactly_its_wrong_numbers(which, lang):
    """A right row of each matrix is accepted; with its first and last numbers changed, the
    message names exactly those two, with the right values (worked by loops here), and neither
    the hint nor the working shows before its button."""
    M = hand_example.example(4)
    expected = every_matrix_by_hand(M)[which]
    at = run_app("hand-check", lang=lang, decimals=2, base="0")
    row = 1
    right = expected[row]
    _check(at, " ".join(f"{v:.4f}" for v in right), which, row)
    assert not at.exception and not at.error
    assert any(s.value.startswith(RIGHT[lang]) for s in at.success), [s.value for s in at.success]
    wrong = right.copy()
    last = len(wrong) - 1
    wrong[0] += 0.5
    wrong[last] -= 0.75
    _check(at, " ".join(f"{v:g}" for v in wrong), which, row)
    assert not at.success and at.error[0].value.startswith(WRONG[lang])
    off = off_lines(at, lang)
    assert len(off) == 2, off
    for line, j, change in zip(off, (0, last), (0.5, 0.75), strict=True):
        assert_printed(numbers(line), [j + 1, wrong[j], right[j], change], 2, line)
    texts = page_text(at)
    assert HINT[lang] not in texts  # the hint waits for its button
    assert (
        at.button(key="answer_hint").label == {"en": "Give me a hint", "zh": "给我一个提示"}[lang]
    )
    at.button(key="answer_hint").click().run()
    (hint,) = [i.value for i in at.info if i.value.startswith(HINT[lang])]
    entry = {"S_scaled": "s"}.get(which, which.lower()) + sub(row, 0)
    assert entry in hint and f"{right[0]:.2f}" not in hint  # names the entry, not its value
    before = len(at.markdown)
    at.button(key="answer_working").click().run()
    assert len(at.markdown) == before + 1  # the working: one more box, below the hint
    assert any(i.value == hint for i in at.info)  # the hint stays


@pytest.mark.parametrize("which", ["Q", "K", "V"])
def test_the_whole_working_of_a_projection_row_is_each_entry_by_hand(which):
    """Row 2 of Q, K or V worked out: one line per entry, x₂'s entries times the column of W and
    the result, each number checked against the loop here."""
    M = hand_example.example(3)
    expected = every_matrix_by_hand(M)[which]
    at = run_app("hand-check", lang="en", hand_dv=3, base="0")
    _check(at, "9 9 9 9" if which != "V" else "9 9 9", which, 2)
    at.button(key="answer_working").click().run()
    letter = which.lower()
    (box,) = [m.value for m in at.markdown if m.value.startswith(f"**{letter}₂ = x₂ W_{which}")]
    lines = [line[2:] for line in box.split("\n") if line.startswith("- ")]
    W = M[f"W_{which}"]
    assert len(lines) == W.shape[1]
    for c, line in enumerate(lines):
        terms = [x for r in range(3) for x in (M["X"][2][r], W[r][c])]
        assert line.startswith(f"{letter}{sub(2, c)} = "), line
        assert_printed(numbers(line), [*terms, expected[2][c]], 2, line)


def test_the_hint_for_a_score_with_the_causal_mask_and_from_one():
    """In Chinese, numbered from 1, with the mask: a wrong masked weight is explained as masked,
    and a wrong score names its row of Q and of K, not its value."""
    at = run_app("hand-check", lang="zh", base=1, hand_causal="true")
    expected = every_matrix_by_hand(hand_example.example(4), causal=True)
    typed = expected["A"][0].copy()
    typed[1] = 0.5
    _check(at, " ".join(f"{v:.2f}" for v in typed), "A", 0)
    at.button(key="answer_hint").click().run()
    hint = next(i.value for i in at.info if i.value.startswith(HINT["zh"]))
    assert "a₁,₂" in hint and "键 2 在查询 1 之后" in hint and "权重是 0" in hint
    typed = expected["S"][2].copy()
    typed[2] += 1
    _check(at, " ".join(f"{v:g}" for v in typed), "S", 2)
    at.button(key="answer_hint").click().run()
    hint = next(i.value for i in at.info if i.value.startswith(HINT["zh"]))
    assert "s₃,₃" in hint and "Q 的行 3 与 K 的行 3" in hint
    assert f"{expected['S'][2][2]:g}" not in hint.replace("行 3", "")  # the value is not given


@pytest.mark.parametrize(
    ("lang", "typed", "message"),
    [
        ("en", "0.1 abc 0.3", "“abc” is not a number."),
        ("zh", "0.1 abc 0.3", "“abc”不是一个数。"),
        ("en", "0.2 0.3", "Expected 3 numbers, got 2."),
        ("zh", "0.2，0.3", "需要 3 个数，你输入了 2 个。"),
        ("en", "1 *x*_ 2", "“\\*x\\*\\_” is not a number."),
        ("zh", "1 [a](b) 2", "“\\[a\\]\\(b\\)”不是一个数。"),
        ("en", "1 inf 2", "“inf” is not a number."),
    ],
)
def test_bad_input_is_explained_in_the_learners_language_and_kept(lang, typed, message):
    at = run_app("hand-check", lang=lang)
    _check(at, typed, "A", 0)
    assert not at.exception and not at.error and not at.success
    assert [w.value for w in at.warning] == [message]  # echoed escaped: no markup comes alive
    assert at.text_input(key="answer_text").value == typed  # what they typed stays in the box
    assert not [b for b in at.button if b.key in ("answer_hint", "answer_working")]


def test_the_inputs_are_plain_tables_until_the_learner_asks_to_edit():
    """No editor (and so no ✎ in column headers) on the page as it prints; the toggle brings
    the four editors."""
    at = run_app("hand-check", lang="en")
    assert not at.dataframe and len(at.table) == INPUTS + 3
    at.toggle(key="hand_edit").set_value(True).run()
    assert not at.exception
    assert len(at.dataframe) == 4 and len(at.table) == 3
