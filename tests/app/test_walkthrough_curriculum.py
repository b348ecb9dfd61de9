"""The walkthrough's curriculum additions: numbering from 1, the block step, the formula line,
predict first, the causal focus default, head and focus in the URL."""

import json

import numpy as np
import pytest

import core
from core.block import block, init_feed_forward
from tests.app.helpers import chart_titled, decode, page_text, run_app


def _trace(tokens, causal=False):
    X = core.embed(tokens, 8) + core.positional_encoding(len(tokens), 8)
    mask = core.causal_mask(len(tokens)) if causal else None
    return core.attention(X, core.init_weights(core.AttentionConfig()), 2, mask=mask)


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


def test_numbering_from_zero_is_the_default():
    at = run_app(step="scores", lang="en", sentence="a b c d")
    assert at.selectbox(key="focus").format_func(0) == "0 · a"
    assert "q₃·k₀" in page_text(at)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_block_step_matches_core_block(lang):
    at = run_app(step="block", lang=lang, sentence="a b c")
    assert not at.exception
    tokens = ["a", "b", "c"]
    tr = _trace(tokens)
    want = block(tr.X, tr.output, init_feed_forward(8, 0))
    spec = chart_titled(at, "Y = LayerNorm")
    np.testing.assert_allclose(decode(spec["data"][0]["z"]), want.Y, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(want.Y.mean(axis=1), 0, atol=1e-9)  # a normalised row each
    text = page_text(at)
    title = {"en": "The rest of the block", "zh": "块的其余部分"}[lang]
    assert title in text
    assert "LayerNorm" in text


def test_block_step_works_out_the_focus_rows_layer_norm():
    at = run_app(step="block", lang="en", sentence="a b c", decimals=3)
    tr = _trace(["a", "b", "c"])
    H = tr.X[2] + tr.output[2]
    text = page_text(at)
    assert f"mean μ = {H.mean():.5f}".replace("-", "−") in text
    assert f"variance σ² = {H.var():.5f}" in text


def test_formula_line_buttons_open_their_steps():
    at = run_app(lang="en", sentence="a b c")
    assert at.session_state["step"] == "tokens"
    at.button_group(key="formula_pick").set_value(4).run()  # the chip "/ √d_k"
    assert at.session_state["step"] == "scaled"
    assert "Scaling" in page_text(at)


def test_causal_focus_defaults_to_a_row_with_a_masked_key():
    at = run_app(step="softmax", lang="en", sentence="a b c d e", mask="causal")
    focus = at.selectbox(key="focus").value
    assert focus == 2
    assert focus < 4  # key 4 comes after it, so the mask hides it
    text = page_text(at)
    assert "key 3 is masked: weight 0" in text and "key 4 is masked: weight 0" in text
    # without the mask the default stays the last token
    at = run_app(step="softmax", lang="en", sentence="a b c d e")
    assert at.selectbox(key="focus").value == 4


def test_focus_and_head_come_from_the_url():
    at = run_app(step="softmax", lang="en", sentence="a b c d", focus=1, head=1)
    assert at.selectbox(key="focus").value == 1
    assert at.session_state["head"] == 1
    A = _trace(["a", "b", "c", "d"]).A[1, 1]
    text = page_text(at)
    for j in range(4):
        assert f"**{A[j]:.2f}**" in text


def test_softmax_title_names_the_mask_when_it_is_on():
    at = run_app(step="softmax", lang="en", sentence="a b c", mask="causal")
    assert chart_titled(at, "A = softmax(masked")
    at = run_app(step="softmax", lang="en", sentence="a b c")
    assert chart_titled(at, "A = softmax(S")


def _unlettered(options) -> list[str]:
    """The choices without their letters ("B. 1" -> "1"), after checking the letters: A, B, …"""
    assert [o.split(". ", 1)[0] for o in options] == list("ABCDEFGH"[: len(options)])
    return [o.split(". ", 1)[1] for o in options]


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
    at = run_app(step="scores", lang="en", sentence="a b c", predict="true")
    [radio] = [r for r in at.radio if r.key.startswith("predict_")]
    question_id = radio.key.removeprefix("predict_")
    assert question_id.startswith("scores|")
    tr = _trace(["a", "b", "c"])
    options = _unlettered(radio.options)
    wrong = next(i for i, label in enumerate(options) if label != _right_score(at, tr))
    radio.set_value(wrong).run()
    [b for b in at.button if b.label == "Check"][0].click().run()
    text = page_text(at)
    assert "The answer is" in text and "0 of 1 prediction right" in text
    assert any("÷ √4" in code.value for code in at.code)


def _right_score(at, tr):
    prompt = page_text(at)
    i = int(prompt.split("Row ")[1].split(",")[0])
    j = int(prompt.split("column ")[1].split(" ")[0])
    return f"{tr.Q[0, i] @ tr.K[0, j] / 2:.2f}".replace("-", "−")
