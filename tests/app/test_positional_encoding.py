"""The positional-encoding page: the matrix and its formula, the waves' colours, numbering from 1,
and 我喜欢你 against 你喜欢我 with and without PE."""

import math

import numpy as np

from tests.support.app import chart_titled, decode, run_app

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
    at = run_app("positional-encoding", lang="en")
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
    at = run_app("positional-encoding", lang="zh")
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
    table = at.dataframe[0].value
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
    assert list(at.dataframe[0].value["token"]) == ["你", "喜欢", "我"]
    assert run_app("positional-encoding", lang="en").selectbox(key="pe_pair").value == "2"
