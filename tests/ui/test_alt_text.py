"""Every chart's text alternative (ui/figures/alt_text.py), read back against the trace and the
numbers it was drawn from: the table holds what the chart prints, with the tokens as headers; the
name's largest entries are the true largest; every figure builder's charts have a name; and no
chart reaches the page but through place.plot(), which gives it both."""

import html
import re
from pathlib import Path

import numpy as np
import pytest

import core
from core.lessons.number_text import num
from tests.support.traces import sentence_attention
from ui.figures import bars, heatmaps, lines, tiles
from ui.figures.alt_text import TABLE_ROWS, TABLE_SIDE, alt_html, chart_text
from ui.figures.heatmaps import A_heatmap, heatmap, mask_heatmap, piece_map
from ui.figures.pickable import pickable

ROOT = Path(__file__).resolve().parents[2]
TOKENS = ["这", "部", "电影", "很", "好看"]


def test_the_weights_table_is_what_the_chart_prints_and_the_name_says_each_rows_largest():
    tr = sentence_attention(TOKENS, causal=True)
    A = tr.A[1]
    forbidden = ~core.causal_mask(5)
    fig = A_heatmap(A, TOKENS, title="A (head 2)", forbidden=forbidden, decimals=2,
                    row_title="query", col_title="key")  # fmt: skip
    text = chart_text(fig, "en")
    corner, columns = text.headers
    assert columns == tuple(TOKENS) and [row[0] for row in text.rows] == TOKENS
    for i, row in enumerate(text.rows):
        for j, cell in enumerate(row[1:]):  # the printed value; "0" where the mask hid the key
            assert cell == ("0" if forbidden[i, j] else num(A[i, j], 2))
    assert "5 × 5" in text.name and "each row sums to 1" in text.name
    for i, token in enumerate(TOKENS):  # every query's heaviest key, by the trace
        j = int(np.argmax(A[i]))
        assert f"{token} → {TOKENS[j]} {num(A[i, j], 2)}" in text.name
    assert f"{int(forbidden.sum())} cells masked" in text.name


def test_a_signed_matrix_names_its_true_largest_and_smallest_entry_with_their_tokens():
    tr = sentence_attention(TOKENS)
    S = tr.S[0]
    fig = heatmap(S, TOKENS, TOKENS, title="S", decimals=3, row_title="query", col_title="key")
    name = chart_text(fig, "en").name
    top = np.unravel_index(np.argmax(S), S.shape)
    low = np.unravel_index(np.argmin(S), S.shape)
    assert f"largest at query {TOKENS[top[0]]}, key {TOKENS[top[1]]}: {num(S[top], 3)}" in name
    assert f"smallest at query {TOKENS[low[0]]}, key {TOKENS[low[1]]}: {num(S[low], 3)}" in name
    assert "sums to 1" not in name  # S's rows do not


def test_masked_scores_read_minus_infinity_in_the_table_and_the_chinese_name():
    tr = sentence_attention(TOKENS, causal=True)
    forbidden = ~core.causal_mask(5)
    fig = heatmap(tr.S_masked[0], TOKENS, TOKENS, title="掩码后的分数", forbidden=forbidden)
    text = chart_text(fig, "zh")
    assert text.rows[0][2:] == ("−∞",) * 4 and text.rows[4][1:] == tuple(
        num(v, 2) for v in tr.S_masked[0, 4]
    )
    assert text.name.startswith("掩码后的分数：5 × 5 的矩阵") and "10 格被遮蔽" in text.name


def test_a_large_matrix_is_tabled_as_its_block_means_and_says_so():
    rng = np.random.default_rng(0)
    M = rng.normal(size=(50, 30))
    fig = heatmap(M, [f"t{i}" for i in range(50)], [f"c{j}" for j in range(30)], title="big")
    text = chart_text(fig, "en")
    # an independent block mean: 50 rows in blocks of 3 (17 rows), 30 columns in blocks of 2
    assert len(text.rows) == 17 and len(text.headers[1]) == 15
    expected = M[0:3, 0:2].mean()
    assert text.rows[0][1] == f"{expected:.4g}".replace("-", "−")
    assert text.rows[0][0] == "t0 … t2" and text.headers[1][0] == "c0 … c1"
    assert "blocks of 3 × 2" in text.note
    assert max(len(text.rows), len(text.headers[1])) <= TABLE_SIDE


def test_lines_are_tabled_by_x_with_a_column_per_series_and_long_ones_thinned():
    xs = [16, 32, 64, 128]
    fig = lines.line_chart(xs, {"matrix": [1.0, 2.0, 8.0, 30.0], "loop": [2.0, 9.0, 40.0, 170.0]},
                           title="time", x_title="n", y_title="ms")  # fmt: skip
    text = chart_text(fig, "en")
    assert text.headers == ("n", ("matrix", "loop"))
    assert text.rows == (
        ("16", "1", "2"),
        ("32", "2", "9"),
        ("64", "8", "40"),
        ("128", "30", "170"),
    )
    assert "loop: from 2 to 170, largest 170 at 128" in text.name
    many = list(range(500))
    long = lines.line_chart(many, {"loss": [1 / (1 + x) for x in many]}, title="loss",
                            x_title="step", y_title="loss", log=False)  # fmt: skip
    thinned = chart_text(long, "en")
    assert len(thinned.rows) <= TABLE_ROWS and thinned.rows[-1][0] == "499"
    assert thinned.rows[0] == ("0", "1")


def test_bars_name_their_largest_category():
    p = [0.1, 0.6, 0.3]
    fig = bars.probability_bars(["a", "<b>", "c"], p, [True, True, False], "next", "p")
    text = chart_text(fig, "en")
    assert [row[0] for row in text.rows] == ["a", "<b>", "c"]  # the token, unescaped
    # the values as printed over the bars, under the y axis's title (not "series 1")
    assert text.headers[1] == ("p",) and [row[1] for row in text.rows] == [
        "0.100",
        "0.600",
        "0.300",
    ]
    assert "p: largest 0.600 at <b>" in text.name and "from" not in text.name
    table = alt_html(fig, "en").split("<tbody>")[1]
    assert "&lt;b&gt;" in table and "<b>" not in table  # escaped where it is written


def test_every_figure_builder_gives_a_named_chart_in_both_languages():
    tr = sentence_attention(TOKENS, causal=True)
    allowed = core.causal_mask(5)
    figures = [
        heatmap(tr.S[0], TOKENS, TOKENS, title="S"),
        A_heatmap(tr.A[0], TOKENS, title="A", forbidden=~allowed),
        mask_heatmap(allowed, TOKENS, TOKENS, title="mask", legend=("allowed", "hidden")),
        piece_map(
            [["a", "b"], ["c", "d"]],
            [[0.1, 0.9], [0.5, 0.2]],
            ["L1", "L2"],
            ["p1", "p2"],
            "lens",
            "p",
        ),  # fmt: skip
        pickable(heatmap(tr.A[0], TOKENS, TOKENS, title="A"), tr.A[0], TOKENS, TOKENS),
        lines.histograms({"q·k": np.arange(100.0)}, title="hist", x_title="q·k"),
        bars.answer_bars(["A", "B"], [3, 5], 1, "answers"),
        bars.grouped_bars(["1", "2"], {"attn": [0.5, -1.0], "mlp": [2.0, 0.1]}, "parts", "layer"),
        tiles.head_tiles([[np.eye(4), np.eye(4)]], ["L1"], ["H1", "H2"], "heads", True),
    ]
    for fig in figures:
        for lang in ("en", "zh"):
            text = chart_text(fig, lang)
            assert text.name and text.rows, fig.layout.title.text
            out = alt_html(fig, lang)
            assert 'data-name="' in out and '<th scope="row">' in out
    lens = chart_text(figures[3], "en")  # a piece keeps its probability beside it
    assert lens.rows[0] == ("L1", "a (0.1)", "b (0.9)")
    assert "largest at row L1, column p2: b (0.9)" in lens.name
    assert heatmaps.heatmap is heatmap  # (the builders above are the app's own)


def test_a_figure_with_nothing_to_say_is_refused_not_left_unnamed():
    import plotly.graph_objects as go

    with pytest.raises(ValueError, match="no text alternative"):
        chart_text(go.Figure(go.Pie(values=[1, 2])), "en")


def test_every_chart_reaches_the_page_through_place_plot():
    """place.plot() is the one caller of st.plotly_chart: a new chart cannot skip its name."""
    callers = [
        path.relative_to(ROOT).as_posix()
        for folder in ("ui", "page_scripts")
        for path in (ROOT / folder).rglob("*.py")
        if re.search(r"\bplotly_chart\(", path.read_text(encoding="utf-8"))
    ]
    assert callers == ["ui/figures/place.py"]
    assert "alt_html(fig)" in (ROOT / "ui/figures/place.py").read_text(encoding="utf-8")


def test_the_name_is_an_attribute_safe_string():
    fig = heatmap(np.eye(2), ['"><script>', "b"], ["a", "b"], title='x" onload="y')
    out = alt_html(fig, "en")
    assert "<script>" not in out and 'onload="y' not in out
    assert html.unescape(re.search(r'data-name="([^"]*)"', out)[1]).startswith('x" onload="y')
