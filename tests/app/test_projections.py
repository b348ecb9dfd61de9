"""The projections page: X Xᵀ and Q Kᵀ against NumPy on one colour range, the diagonal's
statement, the lookup's weights, numbering and decimals."""

import math

import numpy as np
import pytest

import core
from tests.support.app import chart_titled, charts, decode, page_text, run_app
from ui.shell.registry import by_script


def _inputs(sentence: str, d_model=8, n_heads=2, head=0):
    """X, Q, K, V of one head, straight from the core (not through the page's code)."""
    tokens = core.tokenize(sentence)
    X = core.to_numpy(core.embed(tokens, d_model) + core.positional_encoding(len(tokens), d_model))
    W = core.init_weights(core.AttentionConfig(d_model=d_model, n_heads=n_heads))
    d_k = d_model // n_heads
    cols = slice(head * d_k, (head + 1) * d_k)
    Q, K, V = (X @ core.to_numpy(M)[:, cols] for M in (W.W_Q, W.W_K, W.W_V))
    return tokens, X, Q, K, V


def _softmax(row):
    e = np.exp(row - row.max())
    return e / e.sum()


def _diagonal_rows(S):
    return [all(S[i, i] >= S[i, j] for j in range(len(S))) for i in range(len(S))]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_both_panels_match_numpy_and_share_one_colour_range(lang):
    at = run_app("projections", lang=lang)
    assert not at.exception
    assert len(charts(at)) == by_script("projections").charts
    sentence = "the movie was really good" if lang == "en" else "这 部 电影 很 好看"
    tokens, X, Q, K, _ = _inputs(sentence)
    S_X = decode(chart_titled(at, "S = X X")["data"][0]["z"])
    S_QK = decode(chart_titled(at, "S = (X W_Q)")["data"][0]["z"])
    np.testing.assert_allclose(S_X, X @ X.T, rtol=1e-6, atol=1e-5)  # float32 on the wire
    np.testing.assert_allclose(S_QK, Q @ K.T, rtol=1e-6, atol=1e-5)
    left, right = chart_titled(at, "S = X X")["data"][0], chart_titled(at, "S = (X W_Q)")["data"][0]
    bound = max(np.abs(X @ X.T).max(), np.abs(Q @ K.T).max())
    assert left["zmax"] == right["zmax"] == pytest.approx(bound)
    assert left["zmin"] == right["zmin"] == pytest.approx(-bound)
    text = page_text(at)
    # symmetric / not symmetric, as NumPy sees it, with the pair NumPy finds
    gap_X = np.abs(X @ X.T - (X @ X.T).T).max()
    D = np.abs(Q @ K.T - (Q @ K.T).T)
    i, j = sorted(np.unravel_index(np.argmax(D), D.shape))
    a, b = (f"{v:.2f}".replace("-", "−") for v in ((Q @ K.T)[i, j], (Q @ K.T)[j, i]))
    sub = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
    ij, ji = f"{i},{j}".translate(sub), f"{j},{i}".translate(sub)
    if lang == "en":
        assert f"mirrored cells is {gap_X:.2f})" in text
        assert "X Xᵀ is symmetric" in text and "is not symmetric" in text
        assert f"s{ij} = {a} but s{ji} = {b}" in text
    else:
        assert "X Xᵀ 是对称的" in text and "不再对称" in text
        assert f"s{ij} = {a}，而 s{ji} = {b}" in text
        assert "Walkthrough" not in text and "diagonal" not in text
    # each token's weight on itself: the mean of diag(softmax) for both, to the shown decimals
    A_X = np.array([_softmax(r) for r in X @ X.T / math.sqrt(8)])
    A_QK = np.array([_softmax(r) for r in Q @ K.T / 2.0])
    assert f"{np.diag(A_X).mean():.2f}" in text and f"{np.diag(A_QK).mean():.2f}" in text
    bars = chart_titled(at, "Weight on itself" if lang == "en" else "留给自己的权重")["data"]
    np.testing.assert_allclose(decode(bars[0]["y"]), np.diag(A_X), atol=1e-12)
    np.testing.assert_allclose(decode(bars[1]["y"]), np.diag(A_QK), atol=1e-12)


def test_the_diagonal_statement_follows_the_numbers():
    at = run_app("projections", lang="en")  # the default sentence: the diagonal wins everywhere
    tokens, X, Q, K, _ = _inputs("the movie was really good")
    assert all(_diagonal_rows(X @ X.T))
    text = page_text(at)
    assert "In every row of X Xᵀ the largest score is on the diagonal" in text
    wins = sum(_diagonal_rows(Q @ K.T))
    assert f"the diagonal is the largest in {wins} of 5 rows" in text

    sentence = "the cat sat on the mat"  # x_2 is long enough to beat s_11 in row 1
    at.text_input(key="sentence").set_value(sentence).run()
    tokens, X, *_ = _inputs(sentence)
    S = X @ X.T
    rows = _diagonal_rows(S)
    assert not all(rows)
    text = page_text(at)
    assert f"The diagonal of X Xᵀ is the largest in {sum(rows)} of 6 rows" in text
    for i in (i for i, ok in enumerate(rows) if not ok):
        j = int(np.argmax(S[i]))
        assert np.linalg.norm(X[j]) > np.linalg.norm(X[i])  # what the page says, checked here
        assert f"row {i} · {tokens[i]}: s" in text
        assert f"= {S[i, j]:.2f} > s" in text


def test_numbering_from_one_and_decimals():
    at = run_app("projections", lang="zh", base=1, decimals=3)
    assert not at.exception
    tokens = "这 部 电影 很 好看".split()
    spec = chart_titled(at, "S = X X")
    assert spec["layout"]["yaxis"]["ticktext"] == [f"{i + 1} · {w}" for i, w in enumerate(tokens)]
    assert "头 1" in chart_titled(at, "S = (X W_Q)")["layout"]["title"]["text"]
    cell = np.asarray(spec["data"][0]["text"], dtype=object)[0][0]
    assert len(cell.split(".")[1]) == 3
    assert "s₀" not in page_text(at)  # subscripts count from 1 as well
    at.selectbox(key="pj_head").set_value(1).run()
    assert "头 2" in chart_titled(at, "S = (X W_Q)")["layout"]["title"]["text"]


def test_the_lookup_weights_and_answers_match_numpy():
    at = run_app("projections", lang="en")
    at.selectbox(key="pj_q").set_value(2).run()
    at.select_slider(key="pj_T").set_value(0.5).run()
    assert not at.exception
    tokens, X, Q, K, V = _inputs("the movie was really good")
    scores = K @ Q[2] / 2.0
    weights = _softmax(scores / 0.5)
    spec = chart_titled(at, "Weights over the keys for the query 2 · was")
    hard, soft = (decode(trace["y"]) for trace in spec["data"])
    best = int(np.argmax(scores))
    np.testing.assert_array_equal(hard, np.eye(5)[best])
    np.testing.assert_allclose(soft, weights, atol=1e-12)
    mix = "[" + ", ".join(f"{v:.2f}".replace("-", "−") for v in weights @ V) + "]"
    assert mix in page_text(at)


def test_one_token_says_there_is_nothing_to_compare_yet():
    at = run_app("projections", lang="zh", sentence="你好", mode="space", base=1)
    assert not at.exception
    text = page_text(at)
    assert "只有一个 token 时只有一个分数 s₁,₁" in text
    assert "对角线恰好仍在" not in text  # no "by chance in all 1 rows"
