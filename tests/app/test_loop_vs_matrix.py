"""The loop-vs-matrix page: the per-token loop against the matrix form, its player, its shared
colour range, and the timing table from the shared measurement. The numbers both panels print
are held, row by row, to the per-head oracle (tests/support/oracles.py), never to the core's
attention or to the difference the page reports itself."""

import re
from dataclasses import replace

import numpy as np
import pytest

from tests.support.app import chart_range, charts, decode, grids, player_button, run_app, slider
from tests.support.numbers import (
    app_oracle,
    assert_cells,
    assert_masked_cells,
    chart_keyed,
    numbers,
    power_of_ten_value,
)
from ui.kit.i18n import DEFAULT_SENTENCE
from ui.kit.player import INTERVAL_S


def test_loop_page_draws_both_panels_and_reports_their_difference():
    """The loop's panel, then the matrix's, and the largest difference between them printed in
    a power of ten (its value is the core's rounding; the panels' numbers are held to the
    oracle below)."""
    at = run_app("loop-vs-matrix", lang="en", sentence="one two three four")
    assert not at.exception
    message = next(s.value for s in at.success)
    power = r"(0|(\d(\.\d)? × )?10⁻[⁰¹²³⁴⁵⁶⁷⁸⁹]+)"  # 3.6 × 10⁻¹⁶, never 3.6e-16
    assert re.fullmatch(rf"Largest difference .*: {power}", message), message
    keys = [chart.key for chart in at.get("plotly_chart")]
    assert keys[:2] == ["fig_loop", "fig_matrix"]  # the timing chart comes once measured


LOOP_CASES = [
    {"lang": "en", "sentence": "one two three four", "decimals": 3},
    {"lang": "zh", "base": 1, "mask": "causal"},
]


@pytest.mark.parametrize("query", LOOP_CASES, ids=["en-3-decimals", "zh-causal-from-1"])
def test_the_loop_panel_prints_the_output_row_by_row(query):
    """At each position k of the player the loop's panel prints rows 0 … k−1 of the output as
    the oracle computes it (concat(A_h V_h) W_O), the rows still to come as "…", and names row
    k − 1's token; the matrix panel prints every row of the same output throughout."""
    at = run_app("loop-vs-matrix", **query)
    assert not at.exception
    sentence = query.get("sentence", DEFAULT_SENTENCE[query["lang"]])
    ref = app_oracle(sentence, causal=query.get("mask") == "causal")
    output, dec, n = ref.output, query.get("decimals", 2), len(ref.tokens)
    for k in range(1, n + 1):
        if k > 1:
            slider(at, "loop_rows").set_value(k).run()
        loop = chart_keyed(at, "fig_loop")
        pending = np.broadcast_to(np.arange(n)[:, None] >= k, output.shape)  # not yet computed
        assert_masked_cells(loop, output, pending, "…", dec, f"loop after {k} rows")
        title = loop["layout"]["title"]["text"]
        assert numbers(title) == [k, n] and f"“{ref.tokens[k - 1]}”" in title, title
        assert_cells(chart_keyed(at, "fig_matrix"), output, dec, f"matrix at row {k}")


@pytest.fixture
def loop_off_by_one(monkeypatch):
    """core.attention_loop, where ui/work/traces.py looks it up, giving the true loop's output + 1:
    a loop that no longer agrees with the matrix. Its cached results are dropped before and
    after."""
    import core
    from ui.work.traces import loop_trace

    true_loop = core.attention_loop

    def off_by_one(*args, **kwargs):
        trace = true_loop(*args, **kwargs)
        return replace(trace, output=trace.output + 1.0)

    monkeypatch.setattr(core, "attention_loop", off_by_one)
    loop_trace.clear()
    yield
    loop_trace.clear()


def test_the_loop_panel_draws_the_loops_rows_not_the_matrixs(loop_off_by_one):
    """The loop and the matrix agree to rounding, so only a loop that differs tells which one the
    loop panel draws: with the loop's output off by 1, the loop panel prints the output + 1 in
    every row computed so far, the matrix panel the output itself, and the difference is 1."""
    sentence = "the loop fills its own rows"
    at = run_app("loop-vs-matrix", lang="en", sentence=sentence)
    assert not at.exception
    output = app_oracle(sentence).output
    n = len(output)
    for k in (1, n):
        if k > 1:
            slider(at, "loop_rows").set_value(k).run()
        pending = np.broadcast_to(np.arange(n)[:, None] >= k, output.shape)
        assert_masked_cells(chart_keyed(at, "fig_loop"), output + 1, pending, "…", 2, f"row {k}")
        assert_cells(chart_keyed(at, "fig_matrix"), output, 2, f"matrix at row {k}")
    diff = next(s.value for s in at.success).rsplit(": ", 1)[1]
    assert power_of_ten_value(diff) == pytest.approx(1.0)


def test_loop_page_timing_table_arrives_from_the_shared_measurement():
    from tests.support.app import has_chart, run_until

    at = run_until(run_app("loop-vs-matrix", lang="en"), has_chart("Measured times"))
    assert not at.exception
    table = grids(at)[0]
    assert list(table["n (tokens)"]) == [4, 16, 64, 256]
    assert all(cell.endswith(" ms") for cell in table["matrix"])


def test_a_player_stops_at_the_end_and_plays_again_from_the_start(player_clock):
    at = run_app("loop-vs-matrix", lang="en", sentence="one two")
    player_button(at, "loop_rows").click().run()
    player_clock.now += INTERVAL_S  # a second of playing
    at.run()
    assert slider(at, "loop_rows").value == 2 and "Play" in player_button(at, "loop_rows").label
    player_button(at, "loop_rows").click().run()  # Play at the end: from the first row again
    assert slider(at, "loop_rows").value == 1 and "Pause" in player_button(at, "loop_rows").label


def test_loop_page_panels_share_one_colour_range_and_explain_the_difference():
    at = run_app("loop-vs-matrix", lang="en", sentence="one two three four", base=1)
    bound = chart_range(at, "fig_matrix")
    assert chart_range(at, "fig_loop") == bound and bound[0] == -bound[1]
    matrix = decode(charts(at)[1]["data"][0]["z"])
    assert bound[1] == pytest.approx(np.abs(matrix).max(), rel=1e-6)
    diff = next(s.value for s in at.success).rsplit(": ", 1)[1]
    assert any(c.value.startswith(f"{diff}: rounding noise of float64") for c in at.caption)
    assert charts(at)[0]["layout"]["xaxis"]["ticktext"][:2] == ["1", "2"]  # dimensions from 1
    zh = run_app("loop-vs-matrix", lang="zh", sentence="one two three four")
    assert any("float64 的舍入误差" in c.value for c in zh.caption)


def test_a_ratio_below_one_is_not_printed_as_one():
    """Pure Python can beat the matrix at a tiny n: its ratio must read 0.7×, not 1×."""
    from ui.views.loop_vs_matrix import _ratio

    assert [_ratio(r) for r in (0.71, 1.0, 4.26, 13.4, float("nan"))] == [
        "0.7×", "1.0×", "4.3×", "13×", "—"
    ]  # fmt: skip
