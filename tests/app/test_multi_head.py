"""The multi-head page: the split is a reshape of the projection, one head's note, the panels'
shared ranges and their numbering from 1."""

import numpy as np

from tests.support.app import (
    chart_titled,
    charts,
    colour_range,
    decode,
    page_text,
    run_app,
)


def test_multi_head_split_is_a_reshape_of_the_projection():
    at = run_app("multi-head", lang="en", n_heads=4, d_model=8)
    assert not at.exception
    Q_all = decode(chart_titled(at, "X W_Q")["data"][0]["z"])  # [n, h*d_k]
    assert Q_all.shape == (5, 8)
    for h in range(4):  # head h is columns 2h, 2h+1 of X W_Q
        Q_h = decode(chart_titled(at, f"Q_{h}")["data"][0]["z"])
        np.testing.assert_array_equal(Q_h, Q_all[:, 2 * h : 2 * h + 2])
    for h in range(4):
        A_h = decode(chart_titled(at, f"A_{h}")["data"][0]["z"])
        np.testing.assert_allclose(A_h.sum(axis=1), 1.0, atol=1e-5)
    assert "One head or several" in page_text(at)


def test_multi_head_with_one_head_says_how_to_compare():
    at = run_app("multi-head", lang="zh", n_heads=1)
    assert not at.exception
    assert any("2 个或更多的头" in i.value for i in at.info)


def test_multi_head_panels_of_one_quantity_share_one_symmetric_range():
    at = run_app("multi-head", lang="en", n_heads=4, d_model=8)
    assert not at.exception
    Q_all = decode(chart_titled(at, "X W_Q")["data"][0]["z"])
    for name, values in (("Q", Q_all), ("O", None)):
        specs = [chart_titled(at, f"{name}_{h}") for h in range(4)]
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
    assert {colour_range(chart_titled(at, f"A_{h}")) for h in range(4)} == {(0, 1)}


def test_multi_head_numbers_heads_and_columns_from_one():
    at = run_app("multi-head", lang="zh", n_heads=2, d_model=8, base=1)
    assert not at.exception
    titles = [spec["layout"]["title"]["text"] for spec in charts(at)]
    assert any(title.startswith("Q_1") for title in titles)
    assert any(title.startswith("Q_2") for title in titles)
    assert not any(title.startswith(("Q_0", "A_0", "O_0")) for title in titles)
    Q_all = chart_titled(at, "X W_Q")["layout"]
    assert Q_all["xaxis"]["ticktext"][0] == "1" and Q_all["xaxis"]["ticktext"][-1] == "8"
    assert [note["text"] for note in Q_all["annotations"]] == ["头 1", "头 2"]
    assert "头 1 在前" in chart_titled(at, "拼接")["layout"]["title"]["text"]
