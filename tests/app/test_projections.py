"""The projections page: every number it prints (the two score panels, the two softmaxes, the
weight each token keeps on itself, what the numbers say, the lookup's table, bars and answers)
against the app's inputs worked through in this test: X from the token table and PE's formula,
Q Kᵀ and A from the per-head oracle, X Xᵀ, its softmax and the lookup by explicit loops."""

import math

import numpy as np
import pytest

from tests.support.app import chart_titled, charts, decode, grids, page_text, run_app
from tests.support.numbers import app_oracle, assert_cells, assert_printed, chart_keyed, numbers
from ui.shell.registry import by_script

SENTENCES = {"en": "the movie was really good", "zh": "这 部 电影 很 好看"}


def dots_by_loop(A, B) -> np.ndarray:
    """s_ij = Σ_c a_ic b_jc, one product at a time."""
    return np.array([[math.fsum(a * b for a, b in zip(r, c, strict=True)) for c in B] for r in A])


def softmax_by_loop(row) -> np.ndarray:
    e = [math.exp(v - max(row)) for v in row]
    return np.array([x / math.fsum(e) for x in e])


def findings(at) -> list[str]:
    """The bullet lines under 'What the numbers say'."""
    return [m.value for m in at.markdown if m.value.startswith("- ")]


def sub(*indices) -> str:
    """Subscript digits, as the page names a cell: sub(0, 1) -> '₀,₁'."""
    return ",".join(str(i) for i in indices).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


@pytest.mark.parametrize(
    ("lang", "head", "query"),
    [
        ("en", 0, {}),
        ("zh", 1, {"decimals": 3, "mask": "causal"}),
        ("en", 2, {"n_heads": 3, "d_model": 12, "seed": 5}),
    ],
)
def test_score_and_weight_panels_print_x_xt_and_q_kt_and_their_softmaxes(lang, head, query):
    """The four heatmaps print S = X Xᵀ, S = Q_h K_hᵀ, softmax(X Xᵀ/√d_model) and
    softmax(Q_h K_hᵀ/√d_k) for the head picked (unmasked even with the sidebar's causal mask),
    the score panels share one colour range, the bars print diag(A) of both, and the text prints
    √d_model, √d_k and the two diagonals' means."""
    sentence = SENTENCES[lang]
    at = run_app("projections", lang=lang, sentence=sentence, **query)
    if head:
        at.selectbox(key="pj_head").set_value(head).run()
    assert not at.exception
    assert len(charts(at)) == by_script("projections").charts
    decimals = query.get("decimals", 2)
    o = app_oracle(sentence, d_model=query.get("d_model", 8), n_heads=query.get("n_heads", 2),
                   seed=query.get("seed", 0))  # fmt: skip
    d_model, d_k = o.X.shape[1], o.d_k
    S_X = dots_by_loop(o.X, o.X)
    A_X = np.array([softmax_by_loop(row / math.sqrt(d_model)) for row in S_X])
    S_QK, A_QK = o.S[head], o.A[head]
    assert_cells(chart_keyed(at, "pj_S_X"), S_X, decimals, "S = X Xᵀ")
    assert_cells(chart_keyed(at, "pj_S_QK"), S_QK, decimals, f"S = Q Kᵀ, head {head}")
    assert_cells(chart_keyed(at, "pj_A_X"), A_X, decimals, "softmax(X Xᵀ / √d_model)")
    assert_cells(chart_keyed(at, "pj_A_QK"), A_QK, decimals, f"softmax(Q Kᵀ / √d_k), head {head}")
    bound = max(np.abs(S_X).max(), np.abs(S_QK).max())
    for key in ("pj_S_X", "pj_S_QK"):
        trace = chart_keyed(at, key)["data"][0]
        assert (trace["zmin"], trace["zmax"]) == pytest.approx((-bound, bound))
    for bar, A in zip(chart_keyed(at, "pj_self")["data"], (A_X, A_QK), strict=True):
        np.testing.assert_allclose(decode(bar["y"]), np.diag(A), atol=1e-12)
        assert_printed(
            [numbers(v)[0] for v in bar["text"]], np.diag(A), decimals, "weight on itself"
        )
    text = next(m.value for m in at.markdown if "√d_k =" in m.value)
    expected = [math.sqrt(d_model), math.sqrt(d_k), 1, np.diag(A_X).mean(), np.diag(A_QK).mean()]
    assert_printed(numbers(text), expected, decimals, "the scaling and the mean self-weights")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_what_the_numbers_say_prints_the_gap_the_mirrored_pair_the_lengths_and_the_wins(lang):
    """Each statement prints numbers worked out here: X Xᵀ's largest mirrored difference (0),
    the pair (i, j) where Q Kᵀ differs most from its transpose with s_ij and s_ji, the shortest
    and longest |x_i| when every diagonal of X Xᵀ wins, and the rows where q_i · k_i wins."""
    sentence = SENTENCES[lang]
    at = run_app("projections", lang=lang, sentence=sentence, base=0)
    o = app_oracle(sentence)
    S_X, S_QK, n = dots_by_loop(o.X, o.X), o.S[0], len(o.tokens)
    gaps = [(abs(S_QK[i, j] - S_QK[j, i]), i, j) for i in range(n) for j in range(i + 1, n)]
    _, i, j = max(gaps)
    lengths = [math.sqrt(math.fsum(x * x for x in row)) for row in o.X]
    assert all(S_X[r, r] >= S_X[r].max() for r in range(n))  # this sentence: no broken row
    wins = sum(S_QK[r, r] >= S_QK[r].max() for r in range(n))
    symmetric, asymmetric, diagonal_X, diagonal_QK = findings(at)
    assert_printed(numbers(symmetric), [0.0], 2, "X Xᵀ's largest mirrored difference")
    assert_printed(numbers(asymmetric), [S_QK[i, j], S_QK[j, i]], 2, "the mirrored pair")
    assert f"s{sub(i, j)} = " in asymmetric and f"s{sub(j, i)} = " in asymmetric
    assert f"“{o.tokens[i]}”" in asymmetric and f"“{o.tokens[j]}”" in asymmetric  # by name
    assert_printed(numbers(diagonal_X), [min(lengths), max(lengths)], 2, "the lengths |x_i|")
    assert numbers(diagonal_QK) == ([wins, n] if lang == "en" else [n, wins])


@pytest.mark.parametrize(("lang", "base"), [("en", 0), ("zh", 1)])
def test_a_long_vector_breaks_the_diagonal_of_x_xt_and_the_page_prints_which_and_why(lang, base):
    """'the cat sat on the mat': in a row i where some s_ij beats s_ii, the page prints the row,
    s_ij, s_ii, |x_j| and |x_i| as computed here, and how many rows the diagonal still wins."""
    sentence = "the cat sat on the mat"
    at = run_app("projections", lang=lang, sentence=sentence, base=base)
    assert not at.exception
    o = app_oracle(sentence)
    S, n = dots_by_loop(o.X, o.X), len(o.tokens)
    lengths = np.sqrt((o.X**2).sum(axis=1))
    broken = [r for r in range(n) if S[r, r] < S[r].max()]
    assert broken
    line = next(line for line in findings(at) if " > s" in line)
    head = [n - len(broken), n] if lang == "en" else [n, n - len(broken)]
    expected = list(head)
    for r in broken:
        c = int(np.argmax(S[r]))
        expected += [r + base, S[r, c], S[r, r], lengths[c], lengths[r]]
        assert f"s{sub(r + base, c + base)} = " in line and f"|x{sub(c + base)}| = " in line
    assert_printed(numbers(line), expected, 2, "the rows whose diagonal loses")


@pytest.mark.parametrize(("lang", "i", "T", "head"), [("en", 2, 0.5, 0), ("zh", 4, 4.0, 1)])
def test_the_lookup_prints_scores_weights_values_and_both_answers(lang, i, T, head):
    """For query i at temperature T: the table prints q_i · k_j / √d_k, the hard one-hot, the
    soft softmax(scores / T) and each v_j; the bars draw and print the two weight rows; and the
    answers print the best key, v_best, Σ_j a_j v_j and the best key's weight."""
    sentence = SENTENCES[lang]
    at = run_app("projections", lang=lang, sentence=sentence, base=0)
    if head:
        at.selectbox(key="pj_head").set_value(head).run()
    at.selectbox(key="pj_q").set_value(i).run()
    at.select_slider(key="pj_T").set_value(T).run()
    assert not at.exception
    o = app_oracle(sentence)
    Q, K, V = o.Q[head], o.K[head], o.V[head]
    scores = [
        math.fsum(q * k for q, k in zip(Q[i], key, strict=True)) / math.sqrt(o.d_k) for key in K
    ]
    weights = softmax_by_loop([s / T for s in scores])
    best = int(np.argmax(scores))
    hard = np.eye(len(scores))[best]
    soft = sum(w * v for w, v in zip(weights, V, strict=True))
    table = grids(at)[0]
    columns = list(table.columns)
    for column, values in zip(columns[1:4], (scores, hard, weights), strict=True):
        assert_printed([numbers(v)[0] for v in table[column]], values, 2, column)
    for printed, v in zip(table[columns[4]], V, strict=True):
        assert_printed(numbers(printed), v, 2, "value v_j")
    bars = chart_keyed(at, "pj_lookup")["data"]
    for bar, values in zip(bars, (hard, weights), strict=True):
        np.testing.assert_allclose(decode(bar["y"]), values, atol=1e-12)
        assert_printed([numbers(v)[0] for v in bar["text"]], values, 2, bar["name"])
    answers = next(m.value for m in at.markdown if "Σⱼ aⱼ vⱼ" in m.value)
    expected = [best, *V[best], *soft, weights[best], best]
    assert_printed(numbers(answers), expected, 2, "the hard and the soft answer")
    assert answers.count(f"{best} · {o.tokens[best]}") == 2


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


def test_one_token_says_there_is_nothing_to_compare_yet():
    at = run_app("projections", lang="zh", sentence="你好", mode="space", base=1)
    assert not at.exception
    text = page_text(at)
    assert "只有一个 token 时只有一个分数 s₁,₁" in text
    assert "对角线恰好仍在" not in text  # no "by chance in all 1 rows"
