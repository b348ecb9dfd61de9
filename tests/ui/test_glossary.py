"""The Chinese text speaks one vocabulary (assets/glossary.toml) and writes like Chinese, and
both languages write the notation as a reader sees it in print.

test_i18n.py checks that every string exists in both languages with the same placeholders and
that the rendered Chinese pages show no stray English; these checks read every Chinese string
itself, rendered or not: glossary variants, English words, half-width punctuation, ASCII colons,
numbering. Every string in either language: real subscripts (q₄, sᵢⱼ, never q_4, s_ij) and no
computer notation for numbers (1e-05, 0.0e+00). The code that builds text around a string: no
ASCII colon after a translated string (f"{t('shell.shape')}:" gave "形状:"), no number formatted
as 1.2e-05 into a sentence."""

import ast
import re
import tomllib

import pytest

from tests.support import ROOT
from tests.support.wording import (
    ICON,
    ascii_colons,
    computer_numbers,
    english_words,
    underscore_subscripts,
)
from ui.kit.i18n import ERRORS, STRINGS

GLOSSARY = tomllib.loads((ROOT / "assets" / "glossary.toml").read_text("utf-8"))


def _chinese() -> dict:
    """key -> its Chinese forms (the text, or both plural forms), errors.toml included."""
    out = {}
    for key, entry in {**STRINGS, **{f"errors.{k}": v for k, v in ERRORS.items()}}.items():
        text = entry["zh"]
        out[key] = [text["one"], text["other"]] if isinstance(text, dict) else [text]
    return out


CHINESE = _chinese()


def _every_language() -> dict:
    """key -> every form of its text in every language, errors.toml included."""
    out = {}
    for key, entry in {**STRINGS, **{f"errors.{k}": v for k, v in ERRORS.items()}}.items():
        forms = []
        for text in entry.values():
            forms += [text["one"], text["other"]] if isinstance(text, dict) else [text]
        out[key] = forms
    return out


EVERY_LANGUAGE = _every_language()


PLACEHOLDER = re.compile(r"\{[^{}]*\}")


CJK = r"\u3400-\u9fff\uf900-\ufaff"


def unglossed(text: str) -> list[tuple[str, str, str]]:
    """(variant, concept, term) for each forbidden variant the text uses."""
    return [
        (variant, concept, entry["zh"])
        for concept, entry in GLOSSARY.items()
        for variant in entry.get("not", [])
        if variant in text
    ]


def offending(check) -> dict:
    """{key: what ``check`` found} for each Chinese string (any plural form) where it found any."""
    return {
        key: found for key, forms in CHINESE.items() for form in forms if (found := check(form))
    }


HALF_WIDTH = ",:;()?!"


def half_width_next_to_chinese(text: str) -> list[str]:
    """Each half-width , : ; ( ) ? ! that touches a Chinese character, with its neighbours.

    Direct contact counts, and so does a , : ; ? ! before a space and Chinese ("行 0: 和").
    ASCII inside a formula such as "(i, j)", "[n × d]" or "softmax(S / √d_k)" touches Latin
    letters, digits or spaces (a bracket may stand before a space and Chinese: "第 (i, j) 格"),
    and is notation, not prose.
    A placeholder stands for a value, so it is neither Chinese nor punctuation.
    """
    text = ICON.sub(" ", PLACEHOLDER.sub("0", text))  # an icon's colons are not punctuation
    punctuation = re.escape(HALF_WIDTH)
    pattern = rf"[{CJK}][{punctuation}]|[{punctuation}][{CJK}]|[,:;?!] +[{CJK}]"
    return [text[max(m.start() - 3, 0) : m.end() + 3] for m in re.finditer(pattern, text)]


def ordinal_labels(text: str) -> list[str]:
    """'第 {i} 行' and the like: an ordinal around a number that may be counted from 0. A step
    (第 {i} 步) and a placeholder named nth (第 {nth} 个数: the code counts it from 1) are
    counted, not labelled."""
    return re.findall(r"第 ?\{(?!nth\})[^{}]*\} ?(?!步)[" + CJK + "]", text)


def test_the_glossary_gives_one_term_per_concept():
    terms = {}
    for concept, entry in GLOSSARY.items():
        assert {"en", "zh"} <= set(entry) <= {"en", "zh", "not", "note"}, concept
        assert entry["zh"] not in terms, f"{concept} and {terms.get(entry['zh'])}: same term"
        terms[entry["zh"]] = concept
    for concept, entry in GLOSSARY.items():  # a variant is never another concept's term
        for variant in entry.get("not", []):
            assert variant not in terms, (
                f"{concept} forbids {variant!r}, the term of {terms[variant]}"
            )


def test_no_chinese_string_uses_a_forbidden_variant():
    bad = [
        f"{key}: {variant!r} for {concept}, say {term!r}"
        for key, forms in CHINESE.items()
        for form in forms
        for variant, concept, term in unglossed(form)
    ]
    assert not bad, "\n".join(bad)


def test_the_glossary_terms_are_the_ones_the_strings_use():
    """Each concept's term occurs in some Chinese string: the glossary describes this app."""
    text = "\n".join(form for forms in CHINESE.values() for form in forms)
    unused = [concept for concept, entry in GLOSSARY.items() if entry["zh"] not in text]
    assert not unused, f"glossary terms no string uses: {unused}"


def test_chinese_strings_have_no_english_words():
    bad = offending(lambda form: sorted(english_words(form)))
    assert not bad, f"English words in Chinese strings: {bad}"


def test_chinese_prose_uses_full_width_punctuation():
    bad = offending(half_width_next_to_chinese)
    assert not bad, f"half-width punctuation in Chinese prose: {bad}"


def test_numbers_that_follow_the_numbering_setting_are_labels_not_ordinals():
    bad = offending(ordinal_labels)
    assert not bad, f"say 查询行 {{i}} / 列 {{j}} / 头 {{h}}, not 第 {{i}} 行: {bad}"


def test_chinese_strings_write_no_ascii_colon():
    bad = offending(ascii_colons)
    assert not bad, f"say ：, not :, in Chinese: {bad}"


def _in_any_language(check) -> dict:
    return {
        key: found
        for key, forms in EVERY_LANGUAGE.items()
        for form in forms
        if (found := check(form))
    }


def test_no_string_writes_an_index_after_an_underscore():
    bad = _in_any_language(underscore_subscripts)
    assert not bad, f"write q₄, sᵢⱼ, xᵢ (number_text.sub for a placeholder), not q_4: {bad}"


def test_no_string_writes_a_number_in_computer_notation():
    bad = _in_any_language(computer_numbers)
    assert not bad, f"write 10⁻⁵ or 3.4 × 10³⁸ (number_text.power_of_ten), not 1e-05: {bad}"


# Code that builds visible text: a translated string followed by an ASCII colon, in an f-string
# (f"**{t('shell.shape')}:**") or by concatenation (t(...) + ":"), and a number formatted in
# computer notation for the page (f"{diff:.1e}").
def _is_t_call(node) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "t"


def _colon_text(node) -> bool:
    return isinstance(node, ast.Constant) and str(node.value).lstrip("*").startswith(":")


def colon_after_t(source: str) -> list[int]:
    """The lines where a t(...) call is followed by an ASCII colon."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.JoinedStr):
            for before, after in zip(node.values, node.values[1:]):
                if isinstance(before, ast.FormattedValue) and _is_t_call(before.value):
                    lines += [node.lineno] if _colon_text(after) else []
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            lines += [node.lineno] if _is_t_call(node.left) and _colon_text(node.right) else []
    return lines


def e_formats(source: str) -> list[int]:
    """The lines where an f-string formats a value with e or E (1.2e-05)."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FormattedValue)
        and isinstance(node.format_spec, ast.JoinedStr)
        and "".join(
            str(part.value) for part in node.format_spec.values if isinstance(part, ast.Constant)
        ).endswith(("e", "E"))
    ]


def _in_ui(check) -> list[str]:
    return [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted((ROOT / "ui").rglob("*.py"))
        for line in check(path.read_text("utf-8"))
    ]


def test_the_code_puts_no_ascii_colon_after_a_translated_string():
    bad = _in_ui(colon_after_t)
    assert not bad, f"put the colon in the string (zh ：, en :): {bad}"


def test_the_code_formats_no_number_in_computer_notation_for_the_page():
    bad = _in_ui(e_formats)
    assert not bad, f"write 10⁻⁵ or 3.6 × 10⁻¹⁶ (number_text.power_of_ten), not 1e-05: {bad}"


@pytest.mark.parametrize(
    "check, bad, good",
    [
        (colon_after_t, "f'**{t(\"shell.shape\")}:** x'", "f'**{t(\"shell.shape\")}** x'"),
        (colon_after_t, "t('a') + ': '", "x = t('a') + '：'\nif {t('b')}:\n    pass"),
        (e_formats, 'f"{diff:.1e}"', 'f"{diff:.2f} {x:g} {y!r}"'),
    ],
)
def test_each_code_check_catches_bad_code_and_passes_good_code(check, bad, good):
    assert check(bad) and not check(good)


@pytest.mark.parametrize(
    "check, bad, good",
    [
        (unglossed, "较短的句子用 <pad> 补齐。", "较短的句子用 <pad> 填充。"),
        (unglossed, "下载计算单", "下载练习单"),
        (unglossed, "允许的键", "可见的键"),
        (english_words, "每一行的 weights 之和", "每一行的 softmax 之和为 1，W_Q、d_k 和 s_ij"),
        (english_words, "循环 vs 矩阵", "循环与矩阵"),
        (half_width_next_to_chinese, "输出行 {i}: 加权和", "第 (i, j) 格是 qᵢ · kⱼ"),
        (half_width_next_to_chinese, "(查询之后的键)", "[n × d_k] @ [n × d_k]"),
        (half_width_next_to_chinese, "这是什么?", "softmax(S / √d_k)，按行"),
        (ordinal_labels, "第 {i} 行第 {j} 列", "第 {t} 步：行 {i}、列 {j}"),
        (ordinal_labels, "第 {j} 个数：你写的是", "第 {nth} 个数：你写的是"),
        (ascii_colons, "形状: X [3 × 4]", "形状：`a: b`，{limit:.3g}"),
        (ascii_colons, "{of}: 均值", "{of}：均值 μ = {mu}"),
        (ascii_colons, "跟随: {n}", ":material/front_hand: 没听懂"),
        (half_width_next_to_chinese, "跟随: {n}", ":material/front_hand: 没听懂"),
        (underscore_subscripts, "已知 q_{i} = {q}", "已知 q{si} = {q}，d_k = {d_k}，W_Q、W_up"),
        (underscore_subscripts, "s_ij = s_ji，因为 x_i · x_j", "sᵢⱼ = sⱼᵢ，`s_ij = q_i · k_j`"),
        (underscore_subscripts, "Σ_j a_j v_j and W_1, b_1", "Σⱼ aⱼ vⱼ, W₁, d_model, e^(m_old)"),
        (computer_numbers, "最大相差 0.0e+00", "最大差为 0，ε = 10⁻⁵"),
        (computer_numbers, "beyond ±{limit:.3g}", "beyond ±{limit}, 3.4 × 10³⁸, {p:.2f}"),
    ],
)
def test_each_check_catches_a_bad_string_and_passes_a_good_one(check, bad, good):
    assert check(bad) and not check(good)
