"""The loop-vs-matrix page: the per-token loop against the matrix form, its player, its shared
colour range, and the timing table from the shared measurement."""

import time

import numpy as np
import pytest

from tests.support.app import chart_range, charts, decode, player_button, run_app, slider
from ui.kit.player import INTERVAL_S


def test_loop_page_agrees_with_the_matrix():
    at = run_app("loop-vs-matrix", lang="en", sentence="one two three four")
    assert not at.exception
    message = next(s.value for s in at.success)
    diff = float(message.rsplit(":", 1)[1])
    assert diff < 1e-12
    keys = [chart.key for chart in at.get("plotly_chart")]
    assert keys[:2] == ["fig_loop", "fig_matrix"]  # the timing chart comes once measured


def test_loop_page_timing_table_arrives_from_the_shared_measurement():
    from tests.support.app import has_chart, run_until

    at = run_until(run_app("loop-vs-matrix", lang="en"), has_chart("Measured times"))
    assert not at.exception
    table = at.dataframe[0].value
    assert list(table["n (tokens)"]) == [4, 16, 64, 256]
    assert all(cell.endswith(" ms") for cell in table["matrix"])


def test_a_player_stops_at_the_end_and_plays_again_from_the_start():
    at = run_app("loop-vs-matrix", lang="en", sentence="one two")
    player_button(at, "loop_rows").click().run()
    time.sleep(INTERVAL_S)
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
