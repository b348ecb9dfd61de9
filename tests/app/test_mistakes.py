"""The mistakes page: each wrong result beside the right one, the check that catches it in a
neutral panel with its own hint, shared ranges, and Chinese that reads naturally."""

import re

import numpy as np

from tests.support.app import (
    chart_titled,
    charts,
    colour_range,
    decode,
    page_text,
    run_app,
)


def _panels(at) -> list[str]:
    """The text of each bordered container (the checks' neutral panels), in page order."""
    found = []

    def walk(node):
        for child in getattr(node, "children", {}).values():
            proto = getattr(child, "proto", None)
            if type(child).__name__ == "Block" and proto is not None:
                if proto.HasField("flex_container") and proto.flex_container.border:
                    found.append(" ".join(str(getattr(e, "value", "")) for e in _leaves(child)))
                    continue
                walk(child)

    walk(at.main)
    return found


def _leaves(node):
    for child in getattr(node, "children", {}).values():
        if getattr(child, "children", None):
            yield from _leaves(child)
        else:
            yield child


def test_mistakes_page_shows_each_wrong_result_and_its_check():
    at = run_app("mistakes", lang="en")
    assert not at.exception
    wrong = decode(chart_titled(at, "Wrong: softmax(S, axis=0)")["data"][0]["z"])
    np.testing.assert_allclose(wrong.sum(axis=0), 1.0, atol=1e-5)
    assert np.abs(wrong.sum(axis=1) - 1).max() > 0.01
    text = page_text(at)  # the checks' findings, in neutral panels (_panels, below)
    assert "Q [5, 4] @ K [5, 4]: inner dimensions 4 and 5 differ" in text
    assert "concat [5, 16] @ W_O [8, 8]" in text  # d_v mixed up with d_k
    order = decode(chart_titled(at, "Wrong: mask(softmax(S))")["data"][0]["z"])
    assert np.nansum(order, axis=1)[0] < 0.99


def test_a_missing_transpose_that_happens_to_fit_is_flagged_in_chinese():
    at = run_app("mistakes", lang="zh", sentence="a b c d")  # n = d_k = 4
    assert not at.exception
    assert "n = d_k = 4" in page_text(at)


def test_each_mistake_is_a_neutral_panel_with_the_hint_of_its_own_cause():
    at = run_app("mistakes", lang="en")
    assert not at.exception
    assert len(at.error) == 0 and len(at.warning) == 0  # deliberate, not alarming
    axis, transpose, order, d_v = _panels(at)
    assert all("What the check says" in panel for panel in (axis, transpose, order, d_v))
    assert "Row sums of A" in axis and "axis=0" in axis
    assert "inner dimensions 4 and 5 differ" in transpose and "K was not transposed" in transpose
    assert "Row sums of the wrong A" in order and "mask came after the softmax" in order
    assert "concat [5, 16] @ W_O [8, 8]" in d_v and "W_O was given h·d_k = 8 rows" in d_v
    assert "h·d_v = 16" in d_v
    assert "transposed" not in d_v and "forget a transpose" not in page_text(at)


def test_mistakes_wrong_and_right_share_a_range_and_chinese_reads_naturally():
    at = run_app("mistakes", lang="zh", sentence="a b c d", base=1)  # n = d_k = 4: Q K runs
    assert not at.exception
    wrong, right = chart_titled(at, "错误：Q K"), chart_titled(at, "正确：Q Kᵀ")
    assert colour_range(wrong) == colour_range(right)
    both = np.concatenate(
        [decode(wrong["data"][0]["z"]).ravel(), decode(right["data"][0]["z"]).ravel()]
    )
    assert abs(colour_range(wrong)[1] - float(np.abs(both).max())) < 1e-5
    assert wrong["layout"]["xaxis"]["ticktext"] == ["1", "2", "3", "4"]
    titles = [spec["layout"]["title"]["text"] for spec in charts(at)]
    assert all(":" not in title.split("(")[0] for title in titles)  # 错误：, not 错误:
    text = page_text(at) + " ".join(titles)
    assert "softmax 用错了轴" in text and "沿错了轴" not in text
    assert "（头 1）" in text
    assert not re.search(r"mask", text, re.IGNORECASE)
    assert len(_panels(at)) == 4 and len(at.warning) == 0
