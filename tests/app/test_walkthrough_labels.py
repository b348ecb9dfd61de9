"""The labels say what the maths says, read from the rendered page in both languages: step 3 is
X = E + PE, one chip row and step 7's M (1 keeps, 0 hides), the softmax row prints its
sum before dividing by it and names a₄,₀ by both indices, the shapes line multiplies by the whole
W_Q before taking a head's columns, the worked rows say they are worked unrounded, the block row
writes ε = 10⁻⁵; and no page writes q_4, an ASCII colon in Chinese or 1e-05 (the rules of
tests/support/wording.py, which tests/ui/test_glossary.py holds the strings to)."""

import re

import pytest

import ui.shell.style
from tests.support.app import page_text, run_app
from tests.support.numbers import app_oracle, numbers
from tests.support.wording import ascii_colons, computer_numbers, underscore_subscripts
from ui.kit.i18n import t
from ui.kit.session import CELL
from ui.views.walkthrough.steps import NAMES

SENTENCE = {"en": "the movie was really good", "zh": "这 部 电影 很 好看"}  # five tokens each
CJK = r"\u3400-\u9fff"


def _bullets_after(at, heading: str) -> list[str]:
    values = [m.value for m in at.markdown]
    index = next(k for k, value in enumerate(values) if heading in value)
    return [line.removeprefix("- ").replace("**", "") for line in values[index + 1].splitlines()]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_step_3_is_x_equals_e_plus_pe(lang):
    at = run_app(step="x_pe", lang=lang, sentence=SENTENCE[lang])
    title = {"en": "3. Adding positions: X = E + PE", "zh": "3. 加上位置：X = E + PE"}[lang]
    assert title in [s.value for s in at.subheader]
    assert at.latex[0].value.strip("$\n") == "X = E + PE"
    pipeline = at.button_group(key="step")
    assert pipeline.format_func("x_pe") == "E + PE"  # the step's chip
    assert "X + PE" not in page_text(at)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_one_chip_row_and_the_mask_formula_defines_m(lang):
    """One chip row, the pipeline strip: the formula chips, which did the same job (and wrote an
    additive '+ M' once), are gone; step 7 keeps a score where M_ij = 1 and hides it where
    M_ij = 0."""
    at = run_app(step="mask", lang=lang, sentence=SENTENCE[lang], mask="causal")
    assert "formula_pick" not in [g.key for g in at.button_group]  # strip, head, language
    assert at.button_group(key="step").value == "mask"
    formula = at.latex[0].value
    assert r"S'_{ij} & M_{ij} = 1" in formula and r"-\infty & M_{ij} = 0" in formula
    assert "+ M" not in page_text(at)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("mask", ["none", "causal"])
def test_the_softmax_row_sums_before_it_divides_and_names_a_by_both_indices(lang, mask):
    at = run_app(step="softmax", lang=lang, sentence=SENTENCE[lang], mask=mask, base="0")
    i = at.selectbox(key="focus").value  # 4, or 2 under the causal mask
    lines = _bullets_after(at, t("walkthrough.focus_softmax", lang, i=i, si=""))
    o = app_oracle(SENTENCE[lang], causal=mask == "causal")
    n = len(o.tokens)
    assert len(lines) == 1 + n + 1 + n  # the max, n exponentials, their sum, n weights
    first_use = next(k for k, line in enumerate(lines) if " ÷ " in line)
    assert numbers(lines[first_use - 1]) == numbers(lines[first_use].split(" ÷ ")[1])[:1]
    assert first_use == 2 + n  # the sum sits right before the first line that divides by it
    sub = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
    weights = lines[-n:]
    for j, line in enumerate(weights):
        assert line.startswith(f"a{str(i).translate(sub)},{str(j).translate(sub)} = "), line
    colon = {"en": ": ", "zh": "："}[lang]
    for j, line in enumerate(lines[1 : 1 + n]):
        assert line.startswith(f"j = {j}{colon}"), line
    if lang == "zh":
        assert not any(ascii_colons(line) for line in lines), lines


@pytest.mark.parametrize("lang, head, base, columns", [("en", 0, 0, "0–3"), ("zh", 1, 1, "5–8")])
def test_the_shapes_line_multiplies_by_the_whole_w_q_then_takes_the_heads_columns(
    lang, head, base, columns
):
    """As the code shown beside it does: split_heads(X @ W.W_Q, n_heads)."""
    at = run_app(step="qkv", lang=lang, sentence=SENTENCE[lang], head=head, base=base)
    line = next(m.value for m in at.markdown if "W_Q" in m.value and "→" in m.value)
    line = line.replace("\u00a0", " ")  # (each bracket's spaces are no-break spaces)
    assert "X [5 × 8] × W_Q [8 × 8] → [5 × 8]" in line  # the whole W_Q: d_model × d_model
    assert "W_Q [8 × 4]" not in line
    head_part = {"en": f"head {head + base} keeps columns {columns} → Q [5 × 4]",
                 "zh": f"头 {head + base} 取其中的列 {columns} → Q [5 × 4]"}[lang]  # fmt: skip
    assert head_part in line
    assert "K [5 × 4]" in line and "V [5 × 4]" in line
    label = {"en": "**Shapes:**", "zh": "**形状：**"}[lang]
    assert line.startswith(label), line


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("step", ["scores", "scaled", "mask", "softmax", "av", "block"])
def test_every_worked_row_says_it_is_worked_unrounded(lang, step):
    at = run_app(step=step, lang=lang, sentence=SENTENCE[lang])
    note = t("walkthrough.unrounded_note", lang)
    assert note in [c.value for c in at.caption]
    assert {"en": "unrounded", "zh": "未经舍入"}[lang] in note


def test_a_clicked_cell_says_it_is_worked_unrounded_too():
    at = run_app(step="softmax", lang="zh", sentence=SENTENCE["zh"])
    at.session_state[CELL] = ("softmax", 4, 1)
    at.run()
    captions = [c.value for c in at.caption]
    assert captions.count(t("walkthrough.unrounded_note", "zh")) == 2  # the cell and the row


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_block_row_writes_epsilon_as_a_power_of_ten_and_names_its_row(lang):
    at = run_app(step="block", lang=lang, sentence=SENTENCE[lang], base="0")
    token = {"en": "good", "zh": "好看"}[lang]
    heading = t("walkthrough.focus_block", lang, i=4, token=token)
    assert {"en": "Row 4 (“good”)", "zh": "行 4（“好看”）"}[lang] in heading
    row = {"en": "Row 4 (“good”) worked out", "zh": "行 4（“好看”）的计算过程"}[lang]
    assert row in [e.label for e in at.expander]  # a row here, not a query row
    lines = _bullets_after(at, heading)
    eps = {"en": ", with ε = 10⁻⁵", "zh": "，其中 ε = 10⁻⁵"}[lang]
    norms = [line for line in lines if "√(σ² + ε)" in line]
    assert [line.split(" = ", 1)[0] for line in norms] == ["n₄", "y₄"]  # named for the result
    assert all(line.endswith(eps) for line in norms), norms
    assert lines[0].startswith("h₄ = x₄ + MultiHead(X)₄ = ")
    assert "1e-05" not in "\n".join(lines)


def test_the_predict_question_writes_real_subscripts():
    at = run_app(step="scaled", lang="zh", sentence=SENTENCE["zh"], predict="true", base="0")
    prompt = next(m.value for m in at.markdown if "的行 4、列" in m.value)
    prompt = re.sub(r"\\(.)", r"\1", prompt)  # Markdown's escapes undone
    assert "已知 q₄ = [" in prompt and "q₄·k" in prompt and "d_k = 4。" in prompt
    assert not underscore_subscripts(prompt), prompt


def test_the_softmax_code_comment_is_translated_for_a_chinese_reader():
    at = run_app(step="softmax", lang="zh", sentence=SENTENCE["zh"])
    assert t("walkthrough.code_note_A", "zh") in [c.value for c in at.caption]
    at = run_app(step="softmax", lang="en", sentence=SENTENCE["en"])
    assert t("walkthrough.code_note_A", "en") not in [c.value for c in at.caption]


def _visible(at) -> str:
    """The page's text without its code spans and formulas, Markdown's escapes undone."""
    return page_text(at).replace("\\_", "_").replace("\\*", "*")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_step_writes_q_4_an_ascii_colon_in_chinese_or_1e_05(lang):
    """Every step, its worked row open (the focus row) and a predict question too."""
    problems = {}
    for step in NAMES:
        at = run_app(step=step, lang=lang, sentence=SENTENCE[lang], mask="causal")
        assert not at.exception, step
        text = _visible(at)
        found = underscore_subscripts(text) + computer_numbers(text)
        if lang == "zh":
            found += re.findall(rf"[{CJK}（）“”] ?:", text)
        if found:
            problems[step] = found
    assert not problems, problems


@pytest.mark.parametrize(
    "page, query",
    [
        ("hand-check", {}),
        ("projections", {"sentence": "the cat sat on the mat"}),  # no diagonal wins with W_Q, W_K
        ("projections", {}),
        ("loop-vs-matrix", {}),
        ("flash", {}),
    ],
)
def test_other_pages_in_chinese_write_numbers_and_subscripts_as_print_does(page, query):
    at = run_app(page, lang="zh", **query)
    assert not at.exception
    text = _visible(at)
    assert not underscore_subscripts(text), underscore_subscripts(text)
    assert not computer_numbers(text), computer_numbers(text)
    assert not re.findall(rf"[{CJK}（）“”] ?:", text)


def test_the_hand_check_says_how_the_loop_and_the_matrices_agree_without_e_notation():
    at = run_app("hand-check", lang="zh")
    agree = next(i.value for i in at.info if "逐个计算与矩阵计算的结果" in i.value)
    assert agree in (t("hand_check.hand_agree_exactly", "zh"),) or "× 10⁻" in agree
    shapes = next(c.value for c in at.caption if c.value.startswith("形状："))
    assert "·" not in shapes and "]；W_Q、W_K [" in shapes and "]；W_V [" in shapes


def test_a_diagonal_that_wins_in_no_row_says_so():
    at = run_app("projections", lang="zh", sentence="the cat sat on the mat")
    assert "**投影之后，6 行中没有一行的最大分数在对角线上。**" in page_text(at)
    assert "0 行" not in page_text(at)


def test_the_navigation_is_always_expanded(monkeypatch):
    """No 'View N more' button (Streamlit's English) where the navigation folds into the
    sidebar on a phone."""
    import streamlit

    seen = []
    real = streamlit.navigation

    def navigation(*args, **kwargs):
        seen.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(streamlit, "navigation", navigation)
    at = run_app(lang="zh")
    assert not at.exception
    assert seen and all(kwargs.get("expanded") is True for kwargs in seen)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_phone_keeps_the_random_weights_caveat_as_one_short_line(lang):
    """The full caveat is hidden on a phone (style.py); its one short line is drawn in its place,
    in the learner's language."""
    at = run_app(lang=lang, step="scores")
    short = t("shell.random_weights_short", lang)
    assert short in [c.value for c in at.caption]
    assert len(short) < len(t("shell.random_weights_note", lang)) / 2
    assert ".st-key-app_caption_phone {display: block;}" in ui.shell.style.BASE_CSS


def test_the_pe_steps_formula_is_two_lines_that_fit_a_phone():
    """PE's sin and cos rows one under the other (side by side they ran off a 390-px screen)."""
    at = run_app(lang="zh", step="pe")
    [formula] = [element.value for element in at.latex if "PE_{pos,2i}" in element.value]
    assert r"\begin{aligned}" in formula and r"\\ PE_{pos,2i+1}" in formula
