"""The scaling page: measured variance close to d_k, the gradient note, one colour for unscaled,
and the worked row's order."""

import math
import re

import numpy as np
import pytest

from tests.support.app import chart_titled, charts, decode, page_text, run_app

D_K = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)


def test_the_gradient_note_says_what_the_curve_shows():
    at = run_app("scaling", lang="en")
    assert not at.exception
    without, with_scaling = (
        decode(trace["y"])
        for trace in chart_titled(at, "mean size of the softmax gradient")["data"]
    )
    above = [d for d, u, s in zip(D_K, without, with_scaling) if u > s]
    assert above, "the note explains a crossing that the curve has"
    low, high = min(above), max(above)
    cross = D_K[D_K.index(high) + 1]
    text = page_text(at)
    assert f"For d_k = {low} to {high} the unscaled gradient is above the scaled one" in text
    assert f"from d_k = {cross} on it is below" in text
    after = [u < s for d, u, s in zip(D_K, without, with_scaling) if d >= cross]
    assert all(after)  # "below ... from d_k = cross on"
    tail = [u for d, u in zip(D_K, without) if d >= cross]
    assert all(b < a for a, b in zip(tail, tail[1:]))  # "falls towards 0"
    assert f"even row (every weight 1/16) gives {math.sqrt(15) / 16:.2f}" in text
    assert "two keys at one half each give 0.50" in text
    assert f"flat near {np.mean(with_scaling):.2f}" in text
    assert f"(up to {math.sqrt(high):.2f})" in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_unscaled_is_one_colour_in_every_chart(lang):
    at = run_app("scaling", lang=lang)
    specs = charts(at)
    assert len(specs) == 4
    for spec in specs:
        unscaled, scaled = spec["data"]
        assert unscaled["marker"]["color"] == "#D55E00"
        assert scaled["marker"]["color"] == "#0072B2"
        if unscaled.get("type") == "scatter":
            assert unscaled["line"]["color"] == "#D55E00"
            assert scaled["line"]["color"] == "#0072B2"
    if lang == "zh":  # chart text: no English words (symbols and softmax are fine)
        allowed = {"softmax", "d_k"}
        for spec in specs:
            layout = spec["layout"]
            words = [layout["title"]["text"], layout["xaxis"]["title"]["text"]]
            words += [layout.get("yaxis", {}).get("title", {}).get("text", "")]
            words += [trace["name"] for trace in spec["data"]]
            for text in words:
                english = set(re.findall(r"[A-Za-z_]{2,}", text)) - allowed
                assert not english, (text, english)


def test_the_worked_row_keeps_its_order_numbered_from_one_with_three_decimals():
    at = run_app("scaling", lang="en", base=1, decimals=3)
    assert not at.exception
    table = at.dataframe[0].value
    rows = table.iloc[:-1]
    assert list(rows["key"]) == ["1", "2", "3", "4", "5", "6"]
    raw = np.array([float(v.replace("−", "-")) for v in rows["q·k"]])
    scaled = np.array([float(v.replace("−", "-")) for v in rows["q·k / √d_k"]])
    np.testing.assert_allclose(scaled, raw / 8, atol=2e-3)  # d_k = 64 by default
    assert all(len(v.split(".")[1]) == 3 for v in rows["q·k"])
    assert list(np.argsort(-raw)) == list(np.argsort(-scaled))
    assert list(table.iloc[-1][["weight, unscaled", "weight, scaled"]]) == ["1.000", "1.000"]
    best = int(np.argmax(raw)) + 1
    order = " > ".join(str(j + 1) for j in np.argsort(-raw))
    text = page_text(at)
    assert f"same before and after: {order}. Key {best} has the largest score" in text
    assert "changes the weights by at most 0.000" in text


def test_scaling_page_measures_variance_close_to_d_k():
    import re

    at = run_app("scaling", lang="en")
    assert not at.exception
    for d_k in (64, 512):
        at.select_slider(key="sc_d_k").set_value(d_k).run()
        message = at.success[0].value
        raw, scaled = (float(v) for v in re.findall(r"= ([0-9.]+) \(theory", message))
        assert abs(raw - d_k) < 5 * d_k * (3 / 20000) ** 0.5  # five standard errors
        assert abs(scaled - 1) < 5 * (3 / 20000) ** 0.5
    grad = chart_titled(at, "mean size of the softmax gradient")["data"]
    without, with_scaling = (decode(trace["y"]) for trace in grad)
    assert without[-1] < with_scaling[-1] / 3  # d_k = 512: the unscaled gradient has vanished
