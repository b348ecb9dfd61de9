"""AppTest for the multi-head, masks and mistakes pages' panels: shared colour ranges, masks in
two colours, neutral check panels with each mistake's own hint, numbering from 1."""

import re

import numpy as np

from tests.app.helpers import chart_titled, charts, decode, page_text, run_app
from ui.figures.place import panels_per_row


def _range(spec) -> tuple[float, float]:
    trace = spec["data"][0]
    return trace["zmin"], trace["zmax"]


def test_multi_head_panels_of_one_quantity_share_one_symmetric_range():
    at = run_app("multi-head", lang="en", n_heads=4, d_model=8)
    assert not at.exception
    Q_all = decode(chart_titled(at, "X W_Q")["data"][0]["z"])
    for name, values in (("Q", Q_all), ("O", None)):
        specs = [chart_titled(at, f"{name}_{h}") for h in range(4)]
        ranges = {_range(spec) for spec in specs}
        assert len(ranges) == 1, ranges  # one range over the heads
        low, high = ranges.pop()
        assert low == -high
        heads = [decode(spec["data"][0]["z"]) for spec in specs]
        largest = max(float(np.abs(M).max()) for M in heads)
        assert abs(high - largest) < 1e-5  # the max over heads, not each head's own
        if values is not None:
            assert abs(high - float(np.abs(values).max())) < 1e-5
        assert min(float(np.abs(M).max()) for M in heads) < high  # some head's own max is less
    assert {_range(chart_titled(at, f"A_{h}")) for h in range(4)} == {(0, 1)}


def test_head_panels_per_row_leave_room_for_their_numbers():
    assert panels_per_row(4, 2) == 2  # 4 heads of Q_h [5 × 2]: 2 and 2, not 4 of ~70 px
    assert panels_per_row(4, 5) == 2  # A_h [5 × 5]
    assert panels_per_row(3, 12) == 1  # wide panels: one a row
    assert panels_per_row(8, 1) == 4
    assert panels_per_row(1, 2) == 1


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


def test_masks_are_two_colours_with_a_legend_and_no_english_mask_in_chinese():
    at = run_app("masks", lang="zh", base=1)
    assert not at.exception
    masks = [spec for spec in charts(at) if spec["data"][0].get("showscale") is False]
    assert len(masks) == 3
    for spec in masks:
        assert len({colour for _, colour in spec["data"][0]["colorscale"]}) == 2
        assert [trace["name"] for trace in spec["data"][1:]] == ["可见（1）", "被遮住（0）"]
    text = page_text(at) + " ".join(spec["layout"]["title"]["text"] for spec in charts(at))
    assert not re.search(r"mask", text, re.IGNORECASE), text
    assert "句子 2 的三个掩码" in text  # the second sentence, numbered from 1
    table = at.dataframe[0].value
    assert list(table.columns[1:]) == ["1", "2", "3", "4", "5"]
    assert list(table.index) == ["1", "2", "3"]
    options = at.selectbox(key="batch_sentence").options
    assert options[0].startswith("1 · ")


def test_an_all_masked_row_explains_nan_and_the_zero_convention_in_both_languages():
    for lang, words in (("en", ("0 by 0", "NaN", "convention")), ("zh", ("0/0", "NaN", "约定"))):
        at = run_app("masks", lang=lang)
        at.toggle(key="batch_empty").set_value(True).run()
        at.selectbox(key="batch_sentence").set_value(3).run()
        assert not at.exception
        warning = " ".join(w.value for w in at.warning)
        assert all(word in warning for word in words), warning


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
    assert _range(wrong) == _range(right)
    both = np.concatenate(
        [decode(wrong["data"][0]["z"]).ravel(), decode(right["data"][0]["z"]).ravel()]
    )
    assert abs(_range(wrong)[1] - float(np.abs(both).max())) < 1e-5
    assert wrong["layout"]["xaxis"]["ticktext"] == ["1", "2", "3", "4"]
    titles = [spec["layout"]["title"]["text"] for spec in charts(at)]
    assert all(":" not in title.split("(")[0] for title in titles)  # 错误：, not 错误:
    text = page_text(at) + " ".join(titles)
    assert "softmax 用错了轴" in text and "沿错了轴" not in text
    assert "（头 1）" in text
    assert not re.search(r"mask", text, re.IGNORECASE)
    assert len(_panels(at)) == 4 and len(at.warning) == 0
