"""Reveal adds one line of why, for every kind of question, in both languages, on the teacher's
screen and on the students': the shapes line is checked against the shapes worked out here from
the settings (n tokens, d_model, the heads), not from the code that prints it."""

import re

import pytest

from core.lessons.questions import STEP_KINDS
from tests.support.app import room_opened, run_app
from ui.room import connection as room

SENTENCE = "the cat sat on a mat"  # 6 tokens, split at the spaces
N, D_MODEL, HEADS = 6, 12, 3
D_K = D_V = D_MODEL // HEADS  # 4: every size below is distinct from the others but d_v = d_k

SHAPES = {  # what each step's shape question must say why, worked out from the settings alone
    "qkv": f"X [{N} × {D_MODEL}] × W_Q [{D_MODEL} × {D_K}] → Q [{N} × {D_K}]",
    "scores": f"Q [{N} × {D_K}] × Kᵀ [{D_K} × {N}] → S [{N} × {N}]",
    "scaled": f"S [{N} × {N}] ÷ √{D_K} → [{N} × {N}]",
    "mask": f"S/√d_k [{N} × {N}] → [{N} × {N}]",
    "softmax": f"softmax(S/√d_k [{N} × {N}]) → A [{N} × {N}]",
    "av": f"A [{N} × {N}] × V [{N} × {D_V}] → O [{N} × {D_V}]",
    "heads": f"[{N} × {HEADS * D_V}] × W_O [{HEADS * D_V} × {D_MODEL}] → [{N} × {D_MODEL}]",
}
WHY = {"en": "**Why:** ", "zh": "**为什么：** "}
ANY_HAN = re.compile(r"[\u4e00-\u9fff]")


def _unescaped(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", markdown)


def why_lines(at) -> list[str]:
    """The why lines on a page, as read (markdown's escapes undone)."""
    return [
        _unescaped(m.value.split("** ", 1)[1])
        for m in at.markdown
        if any(m.value.startswith(label) for label in WHY.values())
    ]


def _class(teacher_lang: str, step: str, mask: str = "causal"):
    _, code, key = room_opened()
    query = dict(sentence=SENTENCE, d_model=D_MODEL, n_heads=HEADS, mask=mask, step=step)
    teacher = run_app(room=code, key=key, lang=teacher_lang, **query)
    assert not teacher.exception
    return code, teacher


def _ask_and_reveal(code, teacher, step, kind, students):
    teacher.selectbox(key=f"q_kind_{step}").set_value(kind).run()
    teacher.button(key="room_ask").click().run()
    question = room.rooms().get(code)["question"]
    assert question and question["kind"] == kind
    for student in students:
        student.run()
        assert not why_lines(student)  # not before the reveal
    teacher.button(key="room_reveal").click().run()
    for student in students:
        student.run()
    assert not teacher.exception and not any(s.exception for s in students)
    return question


@pytest.mark.parametrize("teacher_lang", ["en", "zh"])
def test_the_shape_questions_why_is_the_shapes_of_the_product(teacher_lang):
    student_lang = "zh" if teacher_lang == "en" else "en"
    for step in STEP_KINDS:
        code, teacher = _class(teacher_lang, step)
        student = run_app(room=code, lang=student_lang)
        _ask_and_reveal(code, teacher, step, "shape", [student])
        for at, lang in ((teacher, teacher_lang), (student, student_lang)):
            lines = why_lines(at)
            assert len(lines) == 1, (step, lang, lines)
            assert SHAPES[step] in lines[0], (step, lang, lines[0])
            assert bool(ANY_HAN.search(lines[0])) == (lang == "zh"), (step, lang, lines[0])


OTHER_KINDS = sorted({(s, k) for s, kinds in STEP_KINDS.items() for k in kinds if k != "shape"})


@pytest.mark.parametrize("step, kind", OTHER_KINDS)
def test_every_other_kind_has_its_why_on_both_screens_in_both_languages(step, kind):
    code, teacher = _class("en", step)
    zh = run_app(room=code, lang="zh")
    question = _ask_and_reveal(code, teacher, step, kind, [zh])
    en, zh_line = why_lines(teacher), why_lines(zh)
    assert len(en) == 1 and len(zh_line) == 1, (en, zh_line)
    assert not ANY_HAN.search(en[0].replace("“", "").replace("”", "")) or kind == "top_key"
    assert ANY_HAN.search(zh_line[0])
    if kind == "masked_cells":  # the mask is causal here: the cells above the diagonal
        assert "above the diagonal" in en[0] and "对角线上方" in zh_line[0]
    if kind == "row_sum":
        assert en[0].endswith("add up to 1.") and zh_line[0].endswith("加起来总是 1。")
    if kind in ("dot_cell", "score_cell"):
        i, j = question["params"]["i"], question["params"]["j"]
        low = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
        named = f"q{str(i).translate(low)}·k{str(j).translate(low)}"  # the cell the prompt asks
        said = f"Row {i}, column {j}" if kind == "dot_cell" else f"{named}, then ÷ √{D_K}"
        assert said in en[0], en[0]
    if kind == "top_key":  # the key named is the heaviest allowed one of the row the question asks
        weights = {}
        for line in question["worked"]:  # a₃₁ = 0.1234 ...
            weights[line.split(" = ")[0]] = float(line.split(" = ")[1])
        heaviest = max(weights, key=weights.get)
        assert f"{heaviest} = {weights[heaviest]:.4f}" in en[0]
        assert f"{heaviest} = {weights[heaviest]:.4f}" in zh_line[0]


def test_without_a_mask_the_why_says_no_cell_is_masked():
    code, teacher = _class("zh", "mask", mask="none")
    en = run_app(room=code, lang="en")
    _ask_and_reveal(code, teacher, "mask", "masked_cells", [en])
    assert "no cell becomes −∞" in why_lines(en)[0]
    assert "没有格子变成 −∞" in why_lines(teacher)[0]


def test_a_token_in_the_why_line_is_escaped():
    _, code, key = room_opened()
    sentence = "*a* [b](x) c"  # markdown that must not take effect: shown as typed
    teacher = run_app(room=code, key=key, lang="en", sentence=sentence, step="softmax", mask="none")
    teacher.selectbox(key="q_kind_softmax").set_value("top_key").run()
    teacher.button(key="room_ask").click().run()
    teacher.button(key="room_reveal").click().run()
    raw = next(m.value for m in teacher.markdown if m.value.startswith(WHY["en"]))
    assert "*a*" not in raw and "](" not in raw  # every special character escaped
