"""Hostile text, tampered links, broken pages and a bounded fuzz: never a traceback, never NaN."""

import json
import re

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.app import chart_titled, decode, page_text, run_app

NAN_ON_SCREEN = re.compile(r"\b(nan|NaN|inf)\b")


def test_tokens_that_look_like_code_are_shown_literally():
    sentence = "<b>bold</b> <script>alert(1)</script> javascript:alert(1) $x^2$ **md**"
    at = run_app(step="scores", lang="en", sentence=sentence)
    assert not at.exception
    spec = chart_titled(at, "S = QK")
    ticks = spec["layout"]["yaxis"]["ticktext"]  # long labels are cut short with "…"
    assert ticks[0].startswith("&lt;b&gt;bold")
    assert ticks[1].startswith("&lt;script")
    assert ticks[3] == "&#36;x^2&#36;"
    assert not any("<" in tick or ">" in tick for tick in ticks)
    focus = next(e.label for e in at.expander)  # the focus row's title, escaped for Markdown
    assert r"\*\*md\*\*" in focus


def test_a_100000_character_sentence_is_answered_and_can_be_cut():
    at = run_app(lang="zh")
    at.text_input(key="sentence").set_value("ab " * 33_334).run(timeout=10)
    assert not at.exception
    assert any("100002 个字符" in e.value and "5000" in e.value for e in at.error)
    at.button(key="cut_chars_sentence").click().run(timeout=10)
    assert len(at.text_input(key="sentence").value) == 5000
    assert any("1667 个 token" in e.value for e in at.error)  # next: too many tokens
    at.button(key="cut_tokens_sentence").click().run(timeout=10)
    assert not at.error and "512 个 token" in page_text(at)


def test_invisible_emoji_rtl_and_combining_characters():
    at = run_app(lang="en")
    at.text_input(key="sentence").set_value("a\u200bb 😀 שלום مرحبا cafe\u0301\x07").run()
    assert not at.exception
    text = page_text(at)
    assert "5 tokens" in text and "2 invisible character(s)" in text


def test_nonsense_in_a_shared_link_is_replaced_with_a_note():
    at = run_app(lang="xx", d_model=-5, n_heads=0, seed="abc", mode="bpe", decimals=9)
    assert not at.exception
    note = at.sidebar.warning[0].value
    for part in ("lang=xx", "d_model=-5", "n_heads=0", "seed=abc", "mode=bpe", "decimals=9"):
        assert (
            part.replace("_", r"\_").replace("-", r"\-").replace("=", "=") in note or part in note
        )
    assert "5 tokens" in page_text(at)  # the default sentence and sizes are in force
    assert at.selectbox(key="d_model").value == 8 and at.selectbox(key="n_heads").value == 2


def test_an_unexpected_error_gets_a_friendly_message_not_a_traceback(monkeypatch):
    import ui.views.walkthrough.view

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(ui.views.walkthrough.view, "render", broken)
    at = run_app(lang="zh")
    assert not at.exception
    assert any("这个页面出了点问题" in e.value for e in at.error)
    assert "RuntimeError: a bug" in at.expander[0].children[0].value  # folded-away details


SENTENCES = st.lists(
    st.sampled_from(
        ["<b>", "我", "喜欢", "😀", "\u200b", "$", "x", "**", "a b", "שלום", "1e309", "nan", " "]
    ),
    max_size=10,
).map("".join)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sentence=SENTENCES,
    lang=st.sampled_from(["en", "zh"]),
    d_model=st.sampled_from([2, 4, 6, 8]),
    heads=st.sampled_from([1, 2, 3, 4]),
    step=st.sampled_from(["tokens", "qkv", "mask", "softmax", "heads"]),
    mode=st.sampled_from(["auto", "char", "jieba"]),
    mask=st.sampled_from(["none", "causal"]),
)
def test_fuzz_the_walkthrough(sentence, lang, d_model, heads, step, mode, mask):
    at = run_app(lang=lang, d_model=d_model, n_heads=heads, step=step, mode=mode, mask=mask)
    at.text_input(key="sentence").set_value(sentence).run()
    assert not at.exception
    text = page_text(at)
    words_typed = sentence.count("nan")
    assert len(NAN_ON_SCREEN.findall(text)) <= words_typed, "NaN or inf shown to the learner"
    for chart in at.get("plotly_chart"):
        assert_no_computed_nan(json.loads(chart.proto.spec))


def assert_no_computed_nan(spec: dict) -> None:
    """No heatmap cell is NaN or inf unless the mask hides it, and no cell text reads nan or inf.

    Plotly stores z as base64: decoded here. A heatmap draws hidden cells as NaN under a grey
    overlay heatmap that is 1 exactly there, so a NaN cell must be covered by such an overlay."""
    maps = [trace for trace in spec["data"] if trace.get("type") == "heatmap"]
    for main in maps[:1]:
        z = decode(main["z"]).astype(np.float64)
        covered = np.zeros(z.shape, bool)
        for overlay in maps[1:]:
            overlay_z = decode(overlay["z"]).astype(np.float64)
            if overlay_z.shape == z.shape:
                covered |= overlay_z == 1.0
        assert not (~np.isfinite(z) & ~covered).any(), "a computed cell is NaN or inf"
        text = np.asarray(main.get("text") or [], dtype=object).ravel()
        assert not any(str(cell).strip().lower() in ("nan", "inf", "-inf") for cell in text)
