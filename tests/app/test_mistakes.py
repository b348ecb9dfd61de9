"""The mistakes page: each wrong result beside the right one, the check that catches it in a
neutral panel with its own hint, shared ranges, and Chinese that reads naturally."""

import math
import re

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
    assert_printed,
    chart_keyed,
    numbers,
    template_numbers,
)
from ui.kit.i18n import t


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


def softmax_by_loop(row) -> np.ndarray:
    e = [math.exp(v - max(row)) for v in row]
    return np.array([x / math.fsum(e) for x in e])


def printed_lines(at, key: str, lang: str) -> list[str]:
    """The markdown that the string ``key`` printed: those starting as its template does."""
    start = t(key, lang).split("{")[0]
    return [m.value for m in at.markdown if m.value.startswith(start)]


def after_colon(line: str) -> str:
    return re.split("[:：]", line, maxsplit=1)[1]


def assert_line(at, key: str, lang: str, decimals: int, **values) -> None:
    """The one line the string ``key`` printed holds ``values`` (rounded) in its places."""
    (line,) = printed_lines(at, key, lang)
    assert_printed(numbers(line), template_numbers(t(key, lang), **values), decimals, key)


@pytest.mark.parametrize(
    ("lang", "sentence", "base", "decimals", "layer"),
    [
        ("en", "the movie was really good", 0, 2, {}),
        ("zh", "a b c d", 1, 3, {}),
        ("en", "one two three four five", 0, 2, {"d_model": 12, "n_heads": 3, "mask": "causal"}),
    ],
)  # fmt: skip
def test_every_mistake_prints_its_wrong_and_its_right_numbers(
    lang, sentence, base, decimals, layer
):
    """Head 0, from the app's inputs through the per-head oracle and loops here: softmax down
    the columns beside A (with the row and column sums the check prints), Q K (when n = d_k)
    beside Q Kᵀ or the shapes that refuse it, softmax-then-mask beside the causal A (with the
    largest difference and the wrong rows' sums), and softmax(S/√d_v) beside A (with d_k, d_v,
    the difference and the concat's and W_O's shapes); whatever the sidebar's mask."""
    at = run_app("mistakes", lang=lang, sentence=sentence, base=base, decimals=decimals, **layer)
    assert not at.exception
    d_model, h = layer.get("d_model", 8), layer.get("n_heads", 2)
    o = app_oracle(sentence, d_model=d_model, n_heads=h)
    causal = app_oracle(sentence, d_model=d_model, n_heads=h, causal=True)
    n, d_k, d_v = len(o.tokens), o.d_k, 2 * o.d_k
    S, scaled, A = o.S[0], o.S_scaled[0], o.A[0]

    columns = np.array([softmax_by_loop(column) for column in scaled.T]).T
    assert_cells(chart_keyed(at, "ms_axis_wrong"), columns, decimals, "softmax(S, axis=0)")
    assert_cells(chart_keyed(at, "ms_axis_right"), A, decimals, "softmax(S, axis=1)")
    assert_line(at, "mistakes.col_sums", lang, decimals, rows=columns.sum(axis=1), sums=[1] * n)

    hint = {"n": n, "d_k": d_k}
    assert_line(at, "mistakes.transpose_hint", lang, decimals, **hint)
    shapes = printed_lines(at, "mistakes.shape_check", lang)
    if n == d_k:
        QK = np.array(
            [[math.fsum(q * k for q, k in zip(Qi, Kc)) for Kc in o.K[0].T] for Qi in o.Q[0]]
        )
        assert_cells(chart_keyed(at, "ms_tr_wrong"), QK, decimals, "Q K")
        assert_cells(chart_keyed(at, "ms_tr_right"), S, decimals, "Q Kᵀ")
        assert_line(at, "mistakes.transpose_fits", lang, decimals, n=n)
    else:
        expected = [n, d_k, n, d_k, d_k, n]  # Q [n, d_k] @ K [n, d_k]: d_k against n
        assert_printed(numbers(after_colon(shapes.pop(0))), expected, 0, "Q @ K")

    allowed = np.tril(np.ones((n, n), bool))
    wrong = np.array([softmax_by_loop(row) for row in scaled]) * allowed
    for key, M in (("ms_order_wrong", wrong), ("ms_order_right", causal.A[0])):
        assert_masked_cells(chart_keyed(at, key), M, ~allowed, "0", decimals, key)
    diff = np.abs(wrong - causal.A[0]).max()
    assert_line(at, "mistakes.order_text", lang, decimals, diff=diff)
    assert_line(at, "mistakes.order_check", lang, decimals, rows=wrong.sum(axis=1))

    by_d_v = np.array([softmax_by_loop(row / math.sqrt(d_v)) for row in S])
    for key, M, root in (("ms_dv_wrong", by_d_v, d_v), ("ms_dv_right", A, d_k)):
        spec = chart_keyed(at, key)
        assert_cells(spec, M, decimals, key)
        assert numbers(spec["layout"]["title"]["text"].rsplit("√", 1)[1]) == [root]
    assert_line(
        at, "mistakes.dv_text", lang, decimals, d_k=d_k, d_v=d_v, diff=np.abs(by_d_v - A).max()
    )
    expected = [n, h * d_v, h * d_k, d_model, h * d_v, h * d_k]  # concat [n, h·d_v] @ W_O
    assert_printed(numbers(after_colon(shapes[-1])), expected, 0, "concat @ W_O")
    assert_line(at, "mistakes.dv_fix", lang, decimals, wrong=h * d_k, rows=h * d_v)
