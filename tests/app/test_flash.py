"""The flash page: the tiles reproduce the full result, the opening tile rescales, numbering and
decimals."""

import re

from tests.support.app import (
    chart_range,
    chart_titled,
    decode,
    has_chart,
    run_app,
    run_until,
    slider,
)


def test_flash_page_tiles_reproduce_the_full_result():
    at = run_app("flash", lang="en", sentence="a b c d e f g")
    assert not at.exception
    message = next(s.value for s in at.success if "tiled" in s.value)
    assert float(message.split("=")[1].split()[0]) <= 1e-12
    at.slider(key="fl_tile").set_value(3).run()
    at.slider(key="fl_step").set_value(1).run()  # the first tile: rows 0-2, keys 0-2
    state = at.dataframe[0].value
    assert list(state.iloc[:, 0]) == ["0 · a", "1 · b", "2 · c"]
    memory = chart_titled(run_until(at, has_chart("Peak memory")), "Peak memory")["data"]
    full, tiled = (decode(trace["y"]) for trace in memory)
    assert full[-1] > 8 * tiled[-1]  # n = 2048: n x n against tiles


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


def test_flash_numbers_from_one_and_follows_decimals():
    at = run_app("flash", lang="en", sentence="a b c d e f g", base=1, decimals=3)
    assert slider(at, "fl_step").value == 1
    at.slider(key="fl_tile").set_value(3).run()
    state = at.dataframe[0].value
    assert list(state.iloc[:, 0]) == ["1 · a", "2 · b", "3 · c"]
    for column in state.columns[2:]:  # max after, rescale, sum: three decimals
        assert all(re.fullmatch(r"−?\d+\.\d{3}", v) for v in state[column]), column
    assert any(m.value.startswith("**Step 1 of 9: query tile 1, key tile 1") for m in at.markdown)
    partial, final = chart_range(at, "fl_partial"), chart_range(at, "fl_final")
    assert partial == final
