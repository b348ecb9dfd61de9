"""AppTest: every page in both languages, and the numbers on screen against the core."""

import math

import numpy as np
import pytest

import core
from tests.app.helpers import PAGE_FILES, chart_titled, decode, page_text, run_app
from ui.kit.i18n import t
from ui.shell.registry import by_script


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("page", list(PAGE_FILES))
def test_every_page_renders_in_both_languages(page, lang):
    at = run_app(page, lang=lang)
    assert not at.exception
    text = page_text(at)
    assert t(by_script(page).title_key, lang) in at.title[0].value
    if lang == "zh":  # the page's own words are Chinese, not English left-overs
        assert "Walkthrough" not in text and "Your answer" not in text


@pytest.mark.parametrize(
    "step", ["tokens", "pe", "x_pe", "qkv", "scores", "scaled", "mask", "softmax", "av", "heads"]
)
@pytest.mark.parametrize("mask", ["none", "causal"])
def test_every_walkthrough_step_renders(step, mask):
    at = run_app(step=step, mask=mask, lang="en")
    assert not at.exception
    assert at.get("plotly_chart"), "each step draws at least one heatmap"


def _scores_by_core(sentence: str, d_model=8, n_heads=2, seed=0):
    tokens = core.tokenize(sentence)
    X = core.embed(tokens, d_model, seed) + core.positional_encoding(len(tokens), d_model)
    W = core.init_weights(core.AttentionConfig(d_model=d_model, n_heads=n_heads, seed=seed))
    Q = core.to_numpy(X) @ core.to_numpy(W.W_Q)[:, : d_model // n_heads]  # head 0
    K = core.to_numpy(X) @ core.to_numpy(W.W_K)[:, : d_model // n_heads]
    return tokens, Q @ K.T


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


def test_loop_page_agrees_with_the_matrix():
    at = run_app("loop-vs-matrix", lang="en", sentence="one two three four")
    assert not at.exception
    message = next(s.value for s in at.success)
    diff = float(message.rsplit(":", 1)[1])
    assert diff < 1e-12
    keys = [chart.key for chart in at.get("plotly_chart")]
    assert keys[:2] == ["fig_loop", "fig_matrix"]  # the timing chart comes once measured


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


def test_loop_page_timing_table_arrives_from_the_shared_measurement():
    from tests.app.helpers import has_chart, run_until

    at = run_until(run_app("loop-vs-matrix", lang="en"), has_chart("Measured times"))
    assert not at.exception
    table = at.dataframe[0].value
    assert list(table["n (tokens)"]) == [4, 16, 64, 256]
    assert all(cell.endswith(" ms") for cell in table["matrix"])
