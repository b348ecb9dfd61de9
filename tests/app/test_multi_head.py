"""The multi-head page: the split is a reshape of the projection, one head's note, the panels'
shared ranges and their numbering from 1, and every number it prints (Q_h, A_h, O_h, X W_Q, the
concat, the output, the one wide head and its difference) against the per-head oracle
(tests/support/oracles.py), never the core's attention."""

import numpy as np
import pytest

from tests.support.app import (
    chart_titled,
    charts,
    colour_range,
    decode,
    page_text,
    run_app,
)
from tests.support.numbers import (
    app_oracle,
    assert_cells,
    assert_masked_cells,
    chart_keyed,
    close,
    numbers,
)
from tests.support.stories import sub
from ui.kit.i18n import DEFAULT_SENTENCE


def test_multi_head_split_is_a_reshape_of_the_projection():
    at = run_app("multi-head", lang="en", n_heads=4, d_model=8, base=0)
    assert not at.exception
    Q_all = decode(chart_titled(at, "X W_Q")["data"][0]["z"])  # [n, h*d_k]
    assert Q_all.shape == (5, 8)
    for h in range(4):  # head h is columns 2h, 2h+1 of X W_Q
        Q_h = decode(chart_titled(at, f"Q{sub(h)}")["data"][0]["z"])
        np.testing.assert_array_equal(Q_h, Q_all[:, 2 * h : 2 * h + 2])
    for h in range(4):
        A_h = decode(chart_titled(at, f"A{sub(h)}")["data"][0]["z"])
        np.testing.assert_allclose(A_h.sum(axis=1), 1.0, atol=1e-5)
    assert "One head or several" in page_text(at)


def test_multi_head_with_one_head_says_how_to_compare():
    at = run_app("multi-head", lang="zh", n_heads=1)
    assert not at.exception
    assert any("2 个或更多的头" in i.value for i in at.info)


def test_multi_head_panels_of_one_quantity_share_one_symmetric_range():
    at = run_app("multi-head", lang="en", n_heads=4, d_model=8, base=0)
    assert not at.exception
    Q_all = decode(chart_titled(at, "X W_Q")["data"][0]["z"])
    for name, values in (("Q", Q_all), ("O", None)):
        specs = [chart_titled(at, f"{name}{sub(h)}") for h in range(4)]
        ranges = {colour_range(spec) for spec in specs}
        assert len(ranges) == 1, ranges  # one range over the heads
        low, high = ranges.pop()
        assert low == -high
        heads = [decode(spec["data"][0]["z"]) for spec in specs]
        largest = max(float(np.abs(M).max()) for M in heads)
        assert abs(high - largest) < 1e-5  # the max over heads, not each head's own
        if values is not None:
            assert abs(high - float(np.abs(values).max())) < 1e-5
        assert min(float(np.abs(M).max()) for M in heads) < high  # some head's own max is less
    assert {colour_range(chart_titled(at, f"A{sub(h)}")) for h in range(4)} == {(0, 1)}


def test_multi_head_numbers_heads_and_columns_from_one():
    at = run_app("multi-head", lang="zh", n_heads=2, d_model=8, base=1)
    assert not at.exception
    titles = [spec["layout"]["title"]["text"] for spec in charts(at)]
    assert any(title.startswith("Q₁") for title in titles)
    assert any(title.startswith("Q₂") for title in titles)
    assert not any(title.startswith(("Q₀", "A₀", "O₀")) for title in titles)
    Q_all = chart_titled(at, "X W_Q")["layout"]
    assert Q_all["xaxis"]["ticktext"][0] == "1" and Q_all["xaxis"]["ticktext"][-1] == "8"
    assert [note["text"] for note in Q_all["annotations"]] == ["头 1", "头 2"]
    assert "头 1 在前" in chart_titled(at, "拼接")["layout"]["title"]["text"]


MULTI_HEAD_CASES = [
    {"lang": "en", "n_heads": 4, "d_model": 8, "decimals": 3, "base": 0},
    {"lang": "zh", "n_heads": 2, "d_model": 8, "base": 1, "mask": "causal"},
]


def _oracle(query: dict, n_heads: int | None = None):
    """The per-head oracle for the page's settings (the default sentence of its language)."""
    return app_oracle(
        DEFAULT_SENTENCE[query["lang"]],
        d_model=query["d_model"],
        n_heads=n_heads or query["n_heads"],
        causal=query.get("mask") == "causal",
    )


@pytest.mark.parametrize("query", MULTI_HEAD_CASES, ids=["en-4-heads", "zh-causal-from-1"])
def test_every_head_prints_its_Q_A_and_O_as_the_oracle_computes_them(query):
    """Each head's panels Q_h, A_h and O_h = A_h V_h print (and colour) the per-head oracle's
    numbers for that head, under that head's number; A's masked cells read 0."""
    at = run_app("multi-head", **query)
    assert not at.exception
    ref, dec, base = _oracle(query), query.get("decimals", 2), query.get("base", 1)
    hidden = np.zeros(ref.A.shape[1:], bool) if ref.mask is None else ~ref.mask
    for h in range(query["n_heads"]):
        Q_h, A_h, O_h = (chart_keyed(at, f"mh_{name}_{h}") for name in ("q", "a", "o"))
        for spec, name in ((Q_h, "Q"), (A_h, "A"), (O_h, "O")):
            assert spec["layout"]["title"]["text"].startswith(f"{name}{sub(h + base)} ")
        assert_cells(Q_h, ref.Q[h], dec, f"Q_{h}")
        assert_masked_cells(A_h, ref.A[h], hidden, "0", dec, f"A_{h}")
        assert_cells(O_h, ref.O[h], dec, f"O_{h}")


@pytest.mark.parametrize("query", MULTI_HEAD_CASES, ids=["en-4-heads", "zh-causal-from-1"])
def test_X_W_Q_the_concat_and_the_output_are_the_oracles(query):
    """X W_Q is every head's Q side by side; the concat is every head's O side by side, head 0
    first; the output is the concat times W_O: each as the oracle computes it."""
    at = run_app("multi-head", **query)
    ref, dec = _oracle(query), query.get("decimals", 2)
    assert_cells(chart_keyed(at, "mh_q_all"), np.concatenate(list(ref.Q), axis=-1), dec, "X W_Q")
    concat = np.concatenate(list(ref.O), axis=-1)  # [n, h·d_v]
    assert_cells(chart_keyed(at, "mh_concat"), concat, dec, "concat")
    assert_cells(chart_keyed(at, "mh_output"), concat @ ref.W.W_O, dec, "output")


@pytest.mark.parametrize("query", MULTI_HEAD_CASES, ids=["en-4-heads", "zh-causal-from-1"])
def test_one_wide_head_prints_its_A_and_its_difference_from_the_heads(query):
    """The one wide head (the same weights, d_k = d_model) prints the one-head oracle's A; the
    difference panel is output(1 head) − output(h heads), and the text's largest |difference|
    is that panel's largest entry, from the two oracles."""
    at = run_app("multi-head", **query)
    ref, wide, dec = _oracle(query), _oracle(query, n_heads=1), query.get("decimals", 2)
    single = chart_keyed(at, "mh_single")
    assert numbers(single["layout"]["title"]["text"]) == [query["d_model"]]  # d_k = d_model
    hidden = np.zeros(wide.A.shape[1:], bool) if wide.mask is None else ~wide.mask
    assert_masked_cells(single, wide.A[0], hidden, "0", dec, "one wide head's A")
    difference = wide.output - ref.output
    assert_cells(chart_keyed(at, "mh_diff"), difference, dec, "output(1) − output(h)")
    h = query["n_heads"]
    line = next(m.value for m in at.markdown if "W_O" in m.value and "A" in m.value)
    *counts, largest = numbers(line)
    assert counts == [h, h], line
    assert close(largest, np.abs(difference).max(), dec), line
