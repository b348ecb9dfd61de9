"""The step-through pages (loop vs matrix, flash, cost): players that open at their first position
and play, numbering from the sidebar's base, decimals in tables, shared colour ranges, the cost
page's recorded chart, path lengths and training against generation."""

import json
import re
import time

import numpy as np
import pytest

from core.variants.flash import flash_attention, rescales, showing_tile
from tests.app.helpers import chart_titled, charts, decode, page_text, run_app
from tests.core.test_paths import simulated_cnn_layers
from ui.kit.i18n import DEFAULT_SENTENCE
from ui.kit.player import INTERVAL_S, advance

PLAYERS = {  # page -> (the player's session key, its first position): counts, from 1 whatever
    "loop-vs-matrix": ("loop_rows", 1),  # the base (rows done, steps taken; "第 0 步" reads wrong)
    "flash": ("fl_step", 1),
    "cost": ("co_step", 1),
}


def test_advance_moves_one_step_a_tick_and_stops_at_the_end():
    assert advance(0, 0, 3, elapsed=INTERVAL_S) == (1, True)
    assert advance(1, 0, 3, elapsed=0.1 * INTERVAL_S) == (1, True)  # another rerun: no step
    assert advance(2, 0, 3, elapsed=INTERVAL_S) == (3, False)  # reaches the end: stops
    assert advance(3, 0, 3, elapsed=INTERVAL_S) == (3, False)
    assert advance(4, 4, 9, elapsed=2 * INTERVAL_S) == (5, True)  # one step, however late


def _slider(at, key):
    return next(s for s in at.slider if s.key == key)


def _button(at, key):
    return next(b for b in at.button if b.key == f"{key}_button")


@pytest.mark.parametrize("page", list(PLAYERS))
def test_players_open_at_the_first_position_and_play_in_both_languages(page):
    key, first = PLAYERS[page]
    for lang, play, pause in (("en", "Play", "Pause"), ("zh", "播放", "暂停")):
        at = run_app(page, lang=lang)
        assert not at.exception
        assert _slider(at, key).value == first and _slider(at, key).min == first
        assert play in _button(at, key).label
        _button(at, key).click().run()
        assert pause in _button(at, key).label and _slider(at, key).value == first
        time.sleep(INTERVAL_S)
        at.run()  # what the fragment's timer does once a second
        assert not at.exception
        assert _slider(at, key).value == first + 1
        _button(at, key).click().run()  # pause
        assert play in _button(at, key).label
        time.sleep(INTERVAL_S)
        at.run()
        assert _slider(at, key).value == first + 1


def test_a_player_stops_at_the_end_and_plays_again_from_the_start():
    at = run_app("loop-vs-matrix", lang="en", sentence="one two")
    _button(at, "loop_rows").click().run()
    time.sleep(INTERVAL_S)
    at.run()
    assert _slider(at, "loop_rows").value == 2 and "Play" in _button(at, "loop_rows").label
    _button(at, "loop_rows").click().run()  # Play at the end: from the first row again
    assert _slider(at, "loop_rows").value == 1 and "Pause" in _button(at, "loop_rows").label


def _zrange(at, key):
    index = [chart.key for chart in at.get("plotly_chart")].index(key)
    trace = charts(at)[index]["data"][0]
    return trace["zmin"], trace["zmax"]


def test_loop_page_panels_share_one_colour_range_and_explain_the_difference():
    at = run_app("loop-vs-matrix", lang="en", sentence="one two three four", base=1)
    bound = _zrange(at, "fig_matrix")
    assert _zrange(at, "fig_loop") == bound and bound[0] == -bound[1]
    matrix = decode(charts(at)[1]["data"][0]["z"])
    assert bound[1] == pytest.approx(np.abs(matrix).max(), rel=1e-6)
    diff = next(s.value for s in at.success).rsplit(": ", 1)[1]
    assert any(c.value.startswith(f"{diff}: rounding noise of float64") for c in at.caption)
    assert charts(at)[0]["layout"]["xaxis"]["ticktext"][:2] == ["1", "2"]  # dimensions from 1
    zh = run_app("loop-vs-matrix", lang="zh", sentence="one two three four")
    assert any("float64 的舍入误差" in c.value for c in zh.caption)


def test_flash_opens_on_a_tile_whose_first_steps_rescale():
    for lang in ("en", "zh"):
        at = run_app("flash", lang=lang)
        steps_seen = []
        for step in range(1, 4):  # the first three steps
            at.slider(key="fl_step").set_value(step).run()
            rescale = at.dataframe[0].value.iloc[:, 3]
            steps_seen += [float(v.replace("−", "-")) for v in rescale]
        assert any(0 < v < 1 for v in steps_seen), (lang, steps_seen)
        # the outlined tile says so on the chart
        at.slider(key="fl_step").set_value(2).run()
        notes = [
            a["text"] for a in chart_titled(at, "S / √d_k").get("layout", {}).get("annotations", [])
        ]
        word = "rescale" if lang == "en" else "重新缩放"
        assert any(re.fullmatch(rf"{word} 0\.\d\d", note) for note in notes), notes


def test_the_default_tile_rescales_in_the_first_steps_of_both_default_sentences():
    from ui.kit.traces import TraceKey, sentence_trace

    for sentence in DEFAULT_SENTENCE.values():
        data = sentence_trace(TraceKey(sentence, "auto", 8, 2, 0, True, "none"))
        Q, K, V = data.trace.Q[0], data.trace.K[0], data.trace.V[0]
        tile = showing_tile(Q, K, V)
        _, steps = flash_attention(Q, K, V, tile, tile, record=True)
        assert any(rescales(step).any() for step in steps[1:3]), sentence


def test_flash_numbers_from_one_and_follows_decimals():
    at = run_app("flash", lang="en", sentence="a b c d e f g", base=1, decimals=3)
    assert _slider(at, "fl_step").value == 1
    at.slider(key="fl_tile").set_value(3).run()
    state = at.dataframe[0].value
    assert list(state.iloc[:, 0]) == ["1 · a", "2 · b", "3 · c"]
    for column in state.columns[2:]:  # max after, rescale, sum: three decimals
        assert all(re.fullmatch(r"−?\d+\.\d{3}", v) for v in state[column]), column
    assert any(m.value.startswith("**Step 1 of 9: query tile 1, key tile 1") for m in at.markdown)
    partial, final = _zrange(at, "fl_partial"), _zrange(at, "fl_final")
    assert partial == final


def test_cost_page_shows_the_recorded_result_before_anyone_measures():
    from measure.cost import RECORDED_COST

    recorded = json.loads(RECORDED_COST.read_text(encoding="utf-8"))["result"]
    for lang, label in (
        ("en", "Recorded on this app's reference machine"),
        ("zh", "本应用的参考机器上记录的结果"),
    ):
        at = run_app("cost", lang=lang, d_model=16)  # settings nobody measured in this process
        assert not at.exception
        assert any(label in i.value for i in at.info)
        spec = chart_titled(at, "seconds per pass" if lang == "en" else "每次计算的秒数")
        attention = decode(spec["data"][0]["y"]).astype(float)
        np.testing.assert_allclose(attention, recorded["attention"], rtol=1e-12)


def test_cost_page_path_lengths_follow_n_and_k():
    at = run_app("cost", lang="en", sentence="one two three four five six")
    table = at.dataframe[0].value
    assert list(table["sequential steps (layers)"]) == [1, simulated_cnn_layers(6, 3), 5]
    at.number_input(key="co_paths_n").set_value(100).run()
    at.number_input(key="co_paths_k").set_value(5).run()
    table = at.dataframe[0].value
    assert list(table["sequential steps (layers)"]) == [1, simulated_cnn_layers(100, 5), 99]
    spec = chart_titled(at, "Steps")
    xs = [int(x) for x in decode(spec["data"][0]["x"])]
    lines = {trace["name"]: [int(y) for y in decode(trace["y"])] for trace in spec["data"]}
    assert 100 in xs and xs == sorted(xs)
    assert lines["CNN, kernel k = 5"] == [simulated_cnn_layers(x, 5) for x in xs]
    assert lines["RNN"] == [x - 1 for x in xs] and set(lines["self-attention"]) == {1}


def test_cost_page_training_targets_are_the_inputs_shifted_by_one():
    at = run_app("cost", lang="en", sentence="the cat sat down", base=1)
    table = next(d.value for d in at.dataframe if "target (next token)" in d.value.columns)
    assert list(table["row"]) == ["1", "2", "3"]
    assert list(table["input"]) == ["the", "cat", "sat"]
    assert list(table["target (next token)"]) == ["cat", "sat", "down"]
    assert list(table["what the row sees (causal mask)"]) == ["the", "the cat", "the cat sat"]
    assert "teacher forcing" in page_text(at)
    assert _zrange(at, "co_full") == _zrange(at, "co_incr")
    assert _slider(at, "co_step").value == 1
    at.slider(key="co_step").set_value(3).run()
    text = page_text(at)
    assert "Step 3: the new input row is “sat”, the token the model produced at step 2." in text
    assert "K and V caches after step 3 (head 1): 3 of 4 rows" in text
    assert len(decode(chart_titled(at, "K cache")["data"][0]["z"])) == 3


def test_cost_page_chinese_charts_say_huancun_and_teacher_forcing():
    at = run_app("cost", lang="zh")
    titles = [spec["layout"]["title"]["text"] for spec in charts(at)]
    assert "K 缓存" in titles and "V 缓存" in titles
    assert not any("cache" in title for title in titles)
    assert "教师强制" in page_text(at)
