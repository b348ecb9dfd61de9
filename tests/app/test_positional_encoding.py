"""The positional-encoding page: the matrix and its formula, the waves' colours, numbering from 1,
and 我喜欢你 against 你喜欢我 with and without PE."""

import math

import numpy as np
import pytest

import core
from tests.support.app import chart_titled, decode, grids, run_app
from tests.support.numbers import (
    assert_cells,
    assert_printed,
    chart_keyed,
    numbers,
    template_numbers,
)
from ui.kit.i18n import t
from ui.views.positional_encoding import PAIRS

OKABE_ITO = {"#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9", "#000000"}


def pe_entry(pos: int, column: int, d: int) -> float:
    """The formula, one entry: column 2i is sin(pos / 10000^(2i/d)), column 2i+1 its cosine."""
    two_i = column - column % 2
    angle = pos / 10000 ** (two_i / d)
    return math.sin(angle) if column % 2 == 0 else math.cos(angle)


def output_rows(tokens, positional: bool, d_model=8, n_heads=2, seed=0) -> np.ndarray:
    """Self-attention's output rows, written out here: sinusoidal PE from the formula, softmax
    row by row, heads side by side, then W_O (the app's embeddings and weights)."""
    import core

    n = len(tokens)
    X = core.to_numpy(core.embed(tokens, d_model, seed)).astype(np.float64)
    if positional:
        X = X + np.array([[pe_entry(p, c, d_model) for c in range(d_model)] for p in range(n)])
    config = core.AttentionConfig(d_model=d_model, n_heads=n_heads, seed=seed)
    W = core.init_weights(config, n=n)
    W_Q, W_K, W_V, W_O = (core.to_numpy(getattr(W, name)) for name in ("W_Q", "W_K", "W_V", "W_O"))
    d_k = d_model // n_heads
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        Q, K, V = X @ W_Q[:, cols], X @ W_K[:, cols], X @ W_V[:, cols]
        S = Q @ K.T / math.sqrt(d_k)
        A = np.exp(S - S.max(axis=1, keepdims=True))
        heads.append((A / A.sum(axis=1, keepdims=True)) @ V)
    return np.concatenate(heads, axis=1) @ W_O


def test_the_matrix_groups_sines_before_cosines_and_holds_the_formula():
    at = run_app("positional-encoding", lang="en", base="0")
    assert not at.exception
    spec = chart_titled(at, "PE [64 × 64]")
    shown = decode(spec["data"][0]["z"])
    columns = [int(c) for c in spec["layout"]["xaxis"]["ticktext"]]
    assert len(columns) == 8  # 64 columns: about eight ticks; their positions say which
    ticks = spec["layout"]["xaxis"]["tickvals"]
    order = [*range(0, 64, 2), *range(1, 64, 2)]
    assert columns == [order[x] for x in ticks]
    assert shown.shape == (64, 64)
    for pos in range(64):
        for x, column in enumerate(order):
            assert abs(shown[pos, x] - pe_entry(pos, column, 64)) < 1e-6, (pos, column)
    bands = [note["text"] for note in spec["layout"]["annotations"]]
    assert bands[0].startswith("sin") and bands[1].startswith("cos")
    assert shown[0, :32].max() == 0 and (shown[0, 32:] == 1).all()  # sin 0 = 0, cos 0 = 1


def test_two_waves_by_default_in_distinct_colour_blind_safe_colours():
    at = run_app("positional-encoding", lang="zh", base="0")
    assert not at.exception
    lines = chart_titled(at, "PE 的列随位置的变化")["data"]
    assert [line["name"] for line in lines] == ["列 0（sin）", "列 12（sin）"]
    colours = [line["line"]["color"] for line in lines]
    assert len(set(colours)) == 2 and set(colours) <= OKABE_ITO
    for line, column in zip(lines, (0, 12)):
        y = decode(line["y"])
        expected = [pe_entry(pos, column, 64) for pos in range(64)]
        np.testing.assert_allclose(y, expected, atol=1e-12)
    slow = decode(lines[1]["y"])
    assert ((slow[:-1] > 0) & (slow[1:] <= 0)).sum() >= 1  # it is still a wave over 64 positions
    at.multiselect(key="pe_dims_64").select(1).run()  # a third column: a dashed cosine
    lines = chart_titled(at, "PE 的列随位置的变化")["data"]
    assert [line["line"]["dash"] for line in lines] == ["solid", "solid", "dash"]
    assert len({line["line"]["color"] for line in lines}) == 3


def test_numbering_from_one_labels_positions_and_columns_from_one():
    at = run_app("positional-encoding", lang="en", base="1", decimals="3")
    assert not at.exception
    spec = chart_titled(at, "PE [64 × 64]")
    assert spec["layout"]["yaxis"]["ticktext"][0] == "1"
    assert spec["layout"]["xaxis"]["ticktext"][0] == "1"  # column 2i = 0
    lines = chart_titled(at, "PE columns along the positions")["data"]
    assert lines[0]["name"] == "column 1 (sin)" and decode(lines[0]["x"])[0] == 1
    assert any("row 1 is pos = 0" in c.value for c in at.caption)
    entry = next(m.value for m in at.markdown if m.value.startswith("angle = 3 /"))
    assert f"= {math.sin(3 / 10000 ** (4 / 64)):.3f};" in entry  # three decimals, as set


def test_wo_xi_huan_ni_rows_are_only_permuted_without_positional_encoding():
    at = run_app("positional-encoding", lang="zh", decimals="4")
    assert not at.exception
    assert at.selectbox(key="pe_pair").value == "0"  # 我喜欢你 ↔ 你喜欢我 in Chinese
    table = grids(at)[0]
    assert list(table["token"]) == ["你", "喜欢", "我"]
    first, second = ["我", "喜欢", "你"], ["你", "喜欢", "我"]
    for positional, column in ((False, "最大差（无位置编码）"), (True, "最大差（有位置编码）")):
        a, b = output_rows(first, positional), output_rows(second, positional)
        expected = [np.abs(b[j] - a[first.index(tok)]).max() for j, tok in enumerate(second)]
        shown = [float(v.replace("−", "-")) for v in table[column]]
        np.testing.assert_allclose(shown, expected, atol=6e-5)  # four decimals shown
    assert all(v == "0.0000" for v in table["最大差（无位置编码）"])
    assert all(float(v) > 0.01 for v in table["最大差（有位置编码）"])


def test_a_link_opens_the_english_page_on_wo_xi_huan_ni():
    at = run_app("positional-encoding", lang="en", pe_pair="0")
    assert not at.exception
    assert list(grids(at)[0]["token"]) == ["你", "喜欢", "我"]
    assert run_app("positional-encoding", lang="en").selectbox(key="pe_pair").value == "2"


def grouped(d: int) -> list[int]:
    """The order the matrix draws its columns in: the sines (even columns), then the cosines."""
    return [c for c in range(d) if c % 2 == 0] + [c for c in range(d) if c % 2 == 1]


@pytest.mark.parametrize(("lang", "base", "decimals"), [("en", 0, 2), ("zh", 1, 4)])
def test_a_small_matrix_prints_every_entry_of_the_formula(lang, base, decimals):
    """PE [16 × 8] is small enough to print its cells: each is the formula's entry rounded, in
    the sines-then-cosines order its column labels name, and the title prints n and d."""
    at = run_app("positional-encoding", lang=lang, base=base, decimals=decimals)
    at.select_slider(key="pe_n").set_value(16).run()
    at.select_slider(key="pe_d").set_value(8).run()
    assert not at.exception
    spec = chart_keyed(at, "pe_matrix")
    order = grouped(8)
    expected = np.array([[pe_entry(pos, c, 8) for c in order] for pos in range(16)])
    assert_cells(spec, expected, decimals, "PE [16 × 8]")
    axis = spec["layout"]["xaxis"]
    assert [int(c) for c in axis["ticktext"]] == [order[x] + base for x in axis["tickvals"]]
    assert numbers(spec["layout"]["title"]["text"]) == [16, 8]


@pytest.mark.parametrize(
    ("lang", "d", "pos", "i", "decimals"), [("en", 64, 3, 2, 2), ("zh", 16, 11, 5, 4)]
)
def test_the_formula_at_one_entry_prints_its_angle_sine_and_cosine(lang, d, pos, i, decimals):
    """The worked entry prints pos, 2i, d, pos/10000^(2i/d), its sine and its cosine, computed
    here, and those are the matrix's own cells PE[pos, 2i] and PE[pos, 2i+1]."""
    at = run_app("positional-encoding", lang=lang, decimals=decimals)
    at.select_slider(key="pe_d").set_value(d).run()
    at.number_input(key="pe_pos").set_value(pos).run()
    at.number_input(key="pe_i").set_value(i).run()
    assert not at.exception
    angle = pos * math.exp(-(2 * i / d) * math.log(10000))
    start = t("positional_encoding.eval", lang).split("{")[0]
    line = next(m.value for m in at.markdown if m.value.startswith(start))
    expected = template_numbers(
        t("positional_encoding.eval", lang), pos=pos, two_i=2 * i, odd=2 * i + 1, d=d,
        angle=angle, sin=math.sin(angle), cos=math.cos(angle),
    )  # fmt: skip
    assert_printed(numbers(line), expected, decimals, "the worked entry")
    shown = decode(chart_keyed(at, "pe_matrix")["data"][0]["z"])
    order = grouped(d)
    assert abs(shown[pos, order.index(2 * i)] - math.sin(angle)) < 1e-6
    assert abs(shown[pos, order.index(2 * i + 1)] - math.cos(angle)) < 1e-6


def test_the_word_order_table_prints_each_tokens_positions_and_both_differences():
    """'dog bites man' ↔ 'man bites dog', numbered from 1: each row prints the token, where it
    stands in both sentences, and max |Δ output row| without PE (0) and with it, computed here."""
    at = run_app("positional-encoding", lang="en", base=1, decimals=3)
    assert not at.exception
    assert at.selectbox(key="pe_pair").value == "2"
    first, second = ["dog", "bites", "man"], ["man", "bites", "dog"]
    table = grids(at)[0]
    token, row_a, row_b, off, on = table.columns
    assert list(table[token]) == second
    assert [int(v) for v in table[row_a]] == [first.index(tok) + 1 for tok in second]
    assert [int(v) for v in table[row_b]] == [1, 2, 3]
    for column, positional in ((off, False), (on, True)):
        a, b = output_rows(first, positional), output_rows(second, positional)
        expected = [np.abs(b[j] - a[first.index(tok)]).max() for j, tok in enumerate(second)]
        assert_printed([numbers(v)[0] for v in table[column]], expected, 3, column)


@pytest.mark.parametrize("pair", range(4))
def test_every_pair_is_a_reordering_and_opens_its_table(pair):
    """Each pair in the picker has the same tokens in another order, and prints its table, one
    row per token of sentence 2 (a pair that was no reordering, 'I love you' ↔ 'you love me',
    broke the section)."""
    first, second = (core.tokenize(s) for s in PAIRS[pair])
    assert sorted(first) == sorted(second) and first != second
    at = run_app("positional-encoding", lang="en", pe_pair=str(pair))
    assert not at.exception and not at.error
    assert len(grids(at)) == 1 and len(grids(at)[0]) == len(second)


def test_the_formula_is_two_lines_that_fit_a_phone():
    """The sin and the cos line on their own (side by side they ran off a 390-px screen)."""
    at = run_app("positional-encoding", lang="zh")
    formulas = [element.value for element in at.latex]
    assert any(r"\sin" in f and r"\cos" not in f for f in formulas)
    assert any(r"\cos" in f and r"\sin" not in f for f in formulas)
