"""The walkthrough page in AppTest: every step, the numbers on screen against the core, numbering
from 1 (the default) or from 0, the block step, the one chip row, predict first (nothing that
answers before Check), the focus row and head in the URL, the mask step's own switch, the steps'
code lines, the downloads, the backend line, and bad input in the learner's language."""

import json
import math

import numpy as np
import pytest

import core
from core.block import block, init_feed_forward
from tests.support.app import (
    chart_titled,
    decode,
    page_text,
    run_app,
)
from tests.support.traces import sentence_attention
from ui.kit import reference_lines as code_lines
from ui.kit.i18n import t
from ui.views.walkthrough.steps import BY_NAME


def _unlettered(options) -> list[str]:
    """The choices without their letters ("B. 1" -> "1"), after checking the letters: A, B, …"""
    assert [o.split(". ", 1)[0] for o in options] == list("ABCDEFGH"[: len(options)])
    return [o.split(". ", 1)[1] for o in options]


def _right_score(at, tr, scale=2):
    prompt = page_text(at)
    i = int(prompt.split("Row ")[1].split(",")[0])
    j = int(prompt.split("column ")[1].split(" ")[0])
    return f"{tr.Q[0, i] @ tr.K[0, j] / scale:.2f}".replace("-", "−")


def _scores_by_core(sentence: str, d_model=8, n_heads=2, seed=0):
    tokens = core.tokenize(sentence)
    X = core.embed(tokens, d_model, seed) + core.positional_encoding(len(tokens), d_model)
    W = core.init_weights(core.AttentionConfig(d_model=d_model, n_heads=n_heads, seed=seed))
    Q = core.to_numpy(X) @ core.to_numpy(W.W_Q)[:, : d_model // n_heads]  # head 0
    K = core.to_numpy(X) @ core.to_numpy(W.W_K)[:, : d_model // n_heads]
    return tokens, Q @ K.T


def test_numbering_from_one_shows_q1_and_head_1():
    at = run_app(step="scores", lang="en", sentence="a b c d", base=1)
    assert not at.exception
    assert [at.selectbox(key="focus").format_func(i) for i in range(4)] == [
        "1 · a", "2 · b", "3 · c", "4 · d"
    ]  # fmt: skip
    text = page_text(at)
    assert "q₄·k₁" in text and "q₃·k₀" not in text  # the last row, numbered from 1
    assert "s₄,₁" in text
    at = run_app(step="av", lang="en", sentence="a b c d", base=1)
    assert chart_titled(at, "O₁ = A V")  # the first head is head 1
    spec = chart_titled(at, "O₁ = A V")
    assert list(spec["layout"]["xaxis"]["ticktext"])[:2] == ["1", "2"]


def test_numbering_from_one_is_the_default_and_base_0_counts_from_zero():
    at = run_app(step="scores", lang="en", sentence="a b c d")
    assert at.selectbox(key="focus").format_func(0) == "1 · a"
    assert "q₄·k₁" in page_text(at) and "q₃·k₀" not in page_text(at)
    assert "base" not in at.query_params  # the default is left out of the URL
    at = run_app(step="scores", lang="en", sentence="a b c d", base="0")
    assert at.selectbox(key="focus").format_func(0) == "0 · a"
    assert "q₃·k₀" in page_text(at)
    assert at.query_params["base"] == "0"  # counting from 0 is kept in the URL


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_block_step_matches_core_block(lang):
    at = run_app(step="block", lang=lang, sentence="a b c")
    assert not at.exception
    tokens = ["a", "b", "c"]
    tr = sentence_attention(tokens)
    want = block(tr.X, tr.output, init_feed_forward(8, 0))
    spec = chart_titled(at, "Y = LayerNorm")
    np.testing.assert_allclose(decode(spec["data"][0]["z"]), want.Y, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(want.Y.mean(axis=1), 0, atol=1e-9)  # a normalised row each
    text = page_text(at)
    title = {"en": "The rest of the block", "zh": "块的其余部分"}[lang]
    assert title in text
    assert "LayerNorm" in text


def test_block_step_works_out_the_focus_rows_layer_norm():
    at = run_app(step="block", lang="en", sentence="a b c", decimals=3, base="0")
    tr = sentence_attention(["a", "b", "c"])
    H = tr.X[2] + tr.output[2]
    text = page_text(at)
    assert f"h₂: mean μ = {H.mean():.3f}".replace("-", "−") in text
    assert f"variance σ² = {H.var():.3f}" in text
    assert "n₂ = (h₂ − μ) ÷ √(σ² + ε) = [" in text  # named after its result, not its input
    assert "y₂ = (n₂ + f₂ − μ) ÷ √(σ² + ε) = [" in text and "with ε = 10⁻⁵" in text


def test_the_pipeline_strip_opens_its_steps():
    at = run_app(lang="en", sentence="a b c")
    assert at.session_state["step"] == "tokens"
    at.button_group(key="step").set_value("scaled").run()
    assert at.session_state["step"] == "scaled"
    assert "Scaling" in page_text(at)


def test_causal_focus_defaults_to_a_row_with_a_masked_key():
    at = run_app(step="softmax", lang="en", sentence="a b c d e", mask="causal", base="0")
    focus = at.selectbox(key="focus").value
    assert focus == 2
    assert focus < 4  # key 4 comes after it, so the mask hides it
    text = page_text(at)
    assert "j = 3: masked, e^(−∞) = 0" in text and "j = 4: masked, e^(−∞) = 0" in text
    assert "a₂,₃ = 0 ÷ " in text and "a₂,₄ = 0 ÷ " in text
    # without the mask the default stays the last token
    at = run_app(step="softmax", lang="en", sentence="a b c d e")
    assert at.selectbox(key="focus").value == 4


def test_focus_and_head_come_from_the_url():
    at = run_app(step="softmax", lang="en", sentence="a b c d", focus=1, head=1)
    assert at.selectbox(key="focus").value == 1
    assert at.session_state["head"] == 1
    A = sentence_attention(["a", "b", "c", "d"]).A[1, 1]
    text = page_text(at)
    for j in range(4):
        assert f"**{A[j]:.2f}**" in text


def test_softmax_title_names_the_mask_when_it_is_on():
    at = run_app(step="softmax", lang="en", sentence="a b c", mask="causal")
    assert chart_titled(at, "A = softmax(masked")
    at = run_app(step="softmax", lang="en", sentence="a b c")
    assert chart_titled(at, "A = softmax(S")


@pytest.mark.parametrize("lang, check", [("en", "Check"), ("zh", "检查")])
def test_predict_first_hides_the_result_until_answered(lang, check):
    at = run_app(step="softmax", lang=lang, sentence="a b c", predict="true")
    assert not at.exception
    assert not [c for c in at.get("plotly_chart") if "softmax" in c.proto.spec]
    [radio] = [r for r in at.radio if r.key.startswith("predict_")]
    [button] = [b for b in at.button if b.label == check]
    assert button.disabled
    # the softmax step asks for a row sum: the right answer is "1"
    radio.set_value(_unlettered(radio.options).index("1")).run()
    [button] = [b for b in at.button if b.label == check]
    button.click().run()
    assert not at.exception
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert any("softmax" in s["layout"]["title"]["text"] for s in specs)
    tally = {"en": "1 of 1 prediction right", "zh": "1 次预测中答对 1 次"}[lang]
    assert tally in page_text(at)


def test_predict_first_a_wrong_answer_gets_the_worked_numbers():
    at = run_app(step="scaled", lang="en", sentence="a b c", predict="true", base="0")
    [radio] = [r for r in at.radio if r.key.startswith("predict_")]
    question_id = radio.key.removeprefix("predict_")
    assert question_id.startswith("scaled|")
    tr = sentence_attention(["a", "b", "c"])
    options = _unlettered(radio.options)
    wrong = next(i for i, label in enumerate(options) if label != _right_score(at, tr))
    radio.set_value(wrong).run()
    [b for b in at.button if b.label == "Check"][0].click().run()
    text = page_text(at)
    assert "The answer is" in text and "0 of 1 prediction right" in text
    assert any("÷ √4" in code.value for code in at.code)


def test_predict_first_at_qk_asks_for_qk_itself():
    """At S = QKᵀ the question is about S's own cell, q·k, not the next step's q·k / √d_k."""
    at = run_app(step="scores", lang="en", sentence="a b c", predict="true", base="0")
    [prompt] = [m.value for m in at.markdown if "Row " in m.value and "column " in m.value]
    assert "of S = QKᵀ" in prompt and "√d_k" not in prompt
    [radio] = [r for r in at.radio if r.key.startswith("predict_")]
    tr = sentence_attention(["a", "b", "c"])
    right = _right_score(at, tr, scale=1)
    radio.set_value(_unlettered(radio.options).index(right)).run()
    [b for b in at.button if b.label == "Check"][0].click().run()
    assert "1 of 1 prediction right" in page_text(at)


ANSWERING = ("qkv", "scores", "scaled", "mask", "softmax", "av", "heads")  # steps that ask


def _answers_on_page(at, step: str, lang: str) -> dict:
    """Which of the step's answering parts are on the page: the lead, the shapes line, the
    explanation and (where the step has one) the worked row's lines."""
    text = page_text(at)
    explain = t(
        "walkthrough.explain_mask_none" if step == "mask" else f"walkthrough.explain_{step}", lang
    )
    return {
        "lead": t(f"walkthrough.lead_{step}", lang) in text,
        "shapes": t("shell.shape", lang) in text,
        "explanation": explain in text,
        "worked": any(m.value.startswith("- ") for m in at.markdown),
    }


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("step", ANSWERING)
def test_predict_first_hides_every_answer_until_check(step, lang):
    at = run_app(step=step, lang=lang, sentence="a b c", predict="true")
    assert not at.exception
    before = _answers_on_page(at, step, lang)
    assert not any(before.values()), f"{step} shows before Check: {before}"
    assert not at.get("plotly_chart")
    [radio] = [r for r in at.radio if r.key.startswith("predict_")]
    radio.set_value(0).run()
    [b for b in at.button if b.label == t("walkthrough.predict_check", lang)][0].click().run()
    after = _answers_on_page(at, step, lang)
    worked = BY_NAME[step].row_story
    assert after == {"lead": True, "shapes": True, "explanation": True, "worked": worked}, after
    assert at.get("plotly_chart")


@pytest.mark.parametrize(
    "step", ["tokens", "pe", "x_pe", "qkv", "scores", "scaled", "mask", "softmax", "av", "heads"]
)
@pytest.mark.parametrize("mask", ["none", "causal"])
def test_every_walkthrough_step_renders(step, mask):
    at = run_app(step=step, mask=mask, lang="en")
    assert not at.exception
    assert at.get("plotly_chart"), "each step draws at least one heatmap"


def test_changing_the_sentence_changes_tokens_and_the_scores_heatmap():
    at = run_app(step="scores", lang="en")
    first = decode(chart_titled(at, "S = QK")["data"][0]["z"])
    assert "5 tokens" in page_text(at)

    at.text_input(key="sentence").set_value("the cat sat on the mat").run()
    assert not at.exception
    assert "6 tokens" in page_text(at)
    spec = chart_titled(at, "S = QK")
    S_screen = decode(spec["data"][0]["z"])
    tokens, S_core = _scores_by_core("the cat sat on the mat")
    assert S_screen.shape == (6, 6) != first.shape
    np.testing.assert_allclose(S_screen, S_core, rtol=1e-6, atol=1e-6)  # float32 on the wire
    # positions on the axes, tokens as tick text: "the" twice, still two distinct rows
    assert spec["layout"]["yaxis"]["ticktext"] == tokens
    assert spec["layout"]["yaxis"]["tickvals"] == list(range(6))
    y = spec["layout"]["yaxis"]  # first token at the top: a reversed axis, automatic or fixed
    assert y.get("autorange") == "reversed" or y["range"][0] > y["range"][1]
    # the printed cell values are the same numbers, rounded to the chosen decimals
    text = np.asarray(spec["data"][0]["text"], dtype=object)
    assert text[0][1] == f"{S_core[0, 1]:.2f}".replace("-", "−")


def test_masked_cells_are_drawn_as_minus_infinity():
    at = run_app(step="mask", mask="causal", lang="en", sentence="a b c d")
    spec = chart_titled(at, "S / √d_k after the mask")
    grey = spec["data"][1]
    assert np.asarray(grey["text"], dtype=object)[0][3] == "−∞"
    assert np.isnan(decode(spec["data"][0]["z"])[0, 3])
    scaled = decode(spec["data"][0]["z"])[3]
    assert np.isfinite(scaled).all()  # the last query sees every key


@pytest.mark.parametrize("decimals", [2, 4])
def test_focus_row_shows_the_real_arithmetic(decimals):
    at = run_app(step="softmax", lang="en", sentence="a b c", decimals=decimals)
    tokens = ["a", "b", "c"]
    X = core.embed(tokens, 8) + core.positional_encoding(3, 8)
    trace = core.attention(X, core.init_weights(core.AttentionConfig()), 2)
    A_row = trace.A[0, 2]  # focus defaults to the last token
    text = page_text(at)
    for j in range(3):  # the weights at the decimals the sidebar asks for
        assert f"**{A_row[j]:.{decimals}f}**" in text
    assert math.isclose(A_row.sum(), 1.0)


@pytest.mark.parametrize("lang, words", [("en", "The sentence is empty"), ("zh", "句子是空的")])
def test_an_empty_sentence_is_explained_in_the_learners_language(lang, words):
    at = run_app(lang=lang)
    at.text_input(key="sentence").set_value("   ").run()
    assert not at.exception
    assert any(words in e.value for e in at.error)
    assert at.text_input(key="sentence").value == "   "


def test_too_many_tokens_is_explained_and_the_text_kept():
    at = run_app(lang="en")
    long_text = " ".join(["w"] * 600)
    at.text_input(key="sentence").set_value(long_text).run()
    assert not at.exception
    assert any("600 tokens" in e.value and "512" in e.value for e in at.error)
    assert at.text_input(key="sentence").value == long_text


def test_heads_that_do_not_divide_d_model_are_explained():
    at = run_app(lang="zh", d_model=6, n_heads=4)
    assert not at.exception
    assert any("不能平均分给 4 个头" in e.value for e in at.error)


def test_too_many_tokens_offers_to_keep_the_first_ones():
    at = run_app(lang="en")
    at.text_input(key="sentence").set_value(" ".join(f"w{i}" for i in range(600))).run()
    at.button(key="cut_tokens_sentence").click().run()
    assert not at.exception and not at.error
    assert at.text_input(key="sentence").value == " ".join(f"w{i}" for i in range(512))
    assert "512 tokens" in page_text(at)


def test_a_long_sentence_says_its_matrices_are_downsampled():
    at = run_app(lang="en", step="softmax", sentence=" ".join(f"w{i}" for i in range(300)))
    assert not at.exception
    assert "300×300 shown as 150×150 blocks" in page_text(at)
    z = decode(chart_titled(at, "A = softmax")["data"][0]["z"])
    assert z.shape == (150, 150)


def test_the_walkthrough_shows_the_steps_lines_in_both_languages():
    for lang, caption in (("en", "The code that computed"), ("zh", "算出这些数字的代码")):
        at = run_app(lang=lang, step="softmax")
        shown = "\n".join(h.proto.body for h in at.get("html"))
        assert "A = softmax_rows(S_masked)" in shown.replace("</mark>", "").replace(
            code_lines.MARK, ""
        )
        assert any(caption in c.value for c in at.caption)


def test_the_walkthrough_offers_both_downloads():
    at = run_app(lang="zh")
    assert not at.exception
    labels = [b.label for b in at.get("download_button")]
    assert "全部矩阵（.npz）" not in labels  # folded away: drawn when opened (ui/kit/fold.py)
    assert t("walkthrough.export_title", "zh") in [e.label for e in at.expander]
    at.session_state["walkthrough_export"] = True  # the learner opens the fold
    at.run()
    labels = [b.label for b in at.get("download_button")]
    assert "全部矩阵（.npz）" in labels and "全部矩阵（CSV 文件，zip 压缩）" in labels


def test_the_walkthrough_says_which_backend_computed_it(gpu_app):
    at = run_app(lang="en", sentence="which backend computed these numbers")
    assert not at.exception
    line = next(c.value for c in at.caption if "Computed with" in c.value)
    assert "NumPy (CPU)" in line and f"shorter than {gpu_app} tokens" in line
    at = run_app(lang="zh", sentence="which backend computed these numbers")
    line = next(c.value for c in at.caption if "计算后端" in c.value)
    assert "NumPy（CPU）" in line and f"少于 {gpu_app} 个 token" in line


def test_the_mask_steps_own_switch_turns_on_the_sidebars_causal_mask():
    at = run_app(step="mask", lang="en", sentence="a b c d")
    assert at.session_state["mask"] == "none" and not at.toggle(key="mask_try").value
    at.toggle(key="mask_try").set_value(True).run()
    assert not at.exception
    assert at.session_state["mask"] == "causal"  # the same setting as the sidebar's radio
    specs = {c.key: json.loads(c.proto.spec) for c in at.get("plotly_chart")}
    np.testing.assert_array_equal(
        decode(specs["fig_mask_M"]["data"][0]["z"]), np.tril(np.ones((4, 4)))
    )
    assert "Grey cells are masked" in page_text(at)
    at.toggle(key="mask_try").set_value(False).run()
    assert at.session_state["mask"] == "none"


def test_concat_w_o_lights_its_own_chip():
    """The one chip row lights the step's own part of the pipeline, concat · W_O included."""
    at = run_app(step="heads", lang="en", sentence="a b c")
    strip = at.button_group(key="step")
    assert strip.value == "heads" and strip.format_func("heads") == "concat · W_O"
