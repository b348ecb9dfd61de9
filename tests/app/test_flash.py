"""The flash page: the tiles reproduce the full result, the opening tile rescales, numbering and
decimals; and every number a step prints (the scores, the running max and sum, the factor, the
output so far, O) against the per-head oracle (tests/support/oracles.py) and the keys seen so
far, never the page's own flash_attention or the difference it reports."""

import re

import numpy as np
import pytest

from tests.support.app import (
    chart_range,
    chart_titled,
    decode,
    grids,
    has_chart,
    run_app,
    run_until,
    slider,
)
from tests.support.numbers import (
    app_oracle,
    assert_cells,
    assert_masked_cells,
    assert_printed,
    chart_keyed,
    close,
    numbers,
)
from ui.kit.i18n import DEFAULT_SENTENCE, t


def test_flash_page_reports_the_difference_shows_a_tile_and_measures_memory():
    """The tiled-against-full difference is printed as a power of ten (its value is the
    core's rounding; the tiles' output is held to the oracle below), the first tile's rows are
    tabled, and the memory chart arrives."""
    at = run_app("flash", lang="en", sentence="a b c d e f g", base="0")
    assert not at.exception
    message = next(s.value for s in at.success if "tiled" in s.value)
    power = r"(0|(\d(\.\d)? × )?10⁻[⁰¹²³⁴⁵⁶⁷⁸⁹]+)"  # 3.6 × 10⁻¹⁶, never 3.6e-16
    assert re.search(rf"= {power} \(rounding noise", message), message
    at.slider(key="fl_tile").set_value(3).run()
    at.slider(key="fl_step").set_value(1).run()  # the first tile: rows 0-2, keys 0-2
    state = grids(at)[0]
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
            rescale = grids(at)[0].iloc[:, 3]
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
    state = grids(at)[0]
    assert list(state.iloc[:, 0]) == ["1 · a", "2 · b", "3 · c"]
    for column in state.columns[2:]:  # max after, rescale, sum: three decimals
        assert all(re.fullmatch(r"−?\d+\.\d{3}", v) for v in state[column]), column
    assert any(m.value.startswith("**Step 1 of 9: query tile 1, key tile 1") for m in at.markdown)
    partial, final = chart_range(at, "fl_partial"), chart_range(at, "fl_final")
    assert partial == final


def _seen_so_far(S, V, rows, j0: int, j1: int):
    """What the online softmax must hold for query ``rows`` after the key tile j0 … j1 − 1,
    written in closed form over the keys seen so far (0 … j1 − 1), with no recurrence: the
    running max m (−∞ while no key is allowed), the max before this tile, the factor
    e^(m_old − m) (0 when there was nothing before), the sum l of e^(s − m), and the output so
    far, those keys' softmax times their values (zero while no key is allowed)."""
    seen, before = S[rows, :j1], S[rows, :j0]
    m = seen.max(axis=1)
    m_old = before.max(axis=1) if j0 else np.full(len(rows), -np.inf)
    safe = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(seen - safe[:, None])  # exp(−∞) = 0 for a hidden key
    l = e.sum(axis=1)
    partial = (e @ V[:j1]) / np.where(l > 0, l, 1.0)[:, None]
    return m, m_old, np.exp(m_old - safe), l, partial


def _infinite_or_close(printed: str, value: float, decimals: int) -> bool:
    if not np.isfinite(value):
        return printed == "−∞"
    return close(numbers(printed)[0], value, decimals)


FLASH_CASES = [
    ({"lang": "en", "decimals": 3, "base": 0}, None),  # the tile the page opens on
    ({"lang": "zh", "base": 1, "mask": "causal"}, 2),
    ({"lang": "en", "sentence": "a b c d e f g", "base": 0}, 3),  # a last tile shorter, from 0
]


@pytest.mark.parametrize("query, tile", FLASH_CASES, ids=["en-open", "zh-causal-from-1", "ragged"])
def test_every_step_prints_the_running_max_sum_and_output_of_the_keys_seen(query, tile):
    """At every step of the player: the step's tiles are named; S / √d_k prints the oracle's
    scaled scores (−∞ where masked) with this step's tile outlined; the rows' table prints the
    max before the tile, the running max m, the factor and the running sum l; the output so far
    is the softmax over the keys seen times their values; after a row's last key tile it is the
    oracle's O (head 0); the softmax(S) V panel is the oracle's O throughout; and the sentence
    above and the note on the chart name the first rescaled row and its factor."""
    at = run_app("flash", **query)
    assert not at.exception
    lang, dec, base = query["lang"], query.get("decimals", 2), query.get("base", 1)
    ref = app_oracle(query.get("sentence", DEFAULT_SENTENCE[lang]), causal="mask" in query)
    if tile is not None:
        at.slider(key="fl_tile").set_value(tile).run()
    tile, n = at.slider(key="fl_tile").value, len(ref.tokens)
    S, V, O = ref.S_masked[0], ref.V[0], ref.O[0]  # head 0
    hidden = np.zeros((n, n), bool) if ref.mask is None else ~ref.mask
    per_row, rescaled = -(-n // tile), 0
    for index in range(per_row**2):
        at.slider(key="fl_step").set_value(index + 1).run()
        qi, kj = divmod(index, per_row)
        i0, i1, j0, j1 = qi * tile, min(n, qi * tile + tile), kj * tile, min(n, kj * tile + tile)
        rows, what = range(i0, i1), f"step {index + 1} (rows {i0}-{i1 - 1}, keys {j0}-{j1 - 1})"
        m, m_old, rescale, l, partial = _seen_so_far(S, V, rows, j0, j1)
        lines = [md.value for md in at.markdown]
        at_heading = next(k for k, line in enumerate(lines) if line.startswith("**"))
        heading, said = lines[at_heading : at_heading + 2]  # where it is, then what happened
        assert numbers(heading) == [index + 1, per_row**2, qi + base, kj + base], heading
        scores = chart_keyed(at, "fl_scores")
        assert_masked_cells(scores, S, hidden, "−∞", dec, f"S / √d_k, {what}")
        box = next(shape for shape in scores["layout"]["shapes"] if shape["type"] == "rect")
        assert (box["x0"], box["x1"], box["y0"], box["y1"]) == (
            j0 - 0.5,
            j1 - 0.5,
            i0 - 0.5,
            i1 - 0.5,
        ), what
        state = grids(at)[0]
        assert list(state.iloc[:, 0]) == [f"{i + base} · {ref.tokens[i]}" for i in rows], what
        for column, values in enumerate((m_old, m), start=1):
            cells = list(state.iloc[:, column])
            assert all(map(_infinite_or_close, cells, values, [dec] * len(cells))), (what, cells)
        assert_printed([numbers(v)[0] for v in state.iloc[:, 3]], rescale, dec, f"factor, {what}")
        assert_printed([numbers(v)[0] for v in state.iloc[:, 4]], l, dec, f"sum l, {what}")
        assert_cells(chart_keyed(at, "fl_partial"), partial, dec, f"output so far, {what}")
        if j1 == n:  # the last key tile: the tiles' result is the attention output
            assert_cells(chart_keyed(at, "fl_partial"), O[rows], dec, f"O, {what}")
        assert_cells(chart_keyed(at, "fl_final"), O[rows], dec, f"softmax(S) V, {what}")
        rose = np.flatnonzero((rescale > 0) & (rescale < 1))  # the running max went up
        notes = [a["text"] for a in scores["layout"].get("annotations", [])]
        if j0 == 0:
            assert said == t("flash.first_tile", lang) and not notes, what
        elif rose.size == 0:
            assert said == t("flash.no_rescale", lang) and not notes, what
        else:
            r, rescaled = int(rose[0]), rescaled + 1
            row, *printed = numbers(said)  # row, old, new, old, new, factor
            assert row == i0 + r + base and f"· {ref.tokens[i0 + r]}" in said, said
            assert_printed(printed, [m_old[r], m[r]] * 2 + [rescale[r]], dec, said)
            assert len(notes) == 1 and close(numbers(notes[0])[0], rescale[rose].min(), dec)
    assert rescaled, "no step rescaled: the sentence and tile do not test the factor"
