"""Nothing said by colour alone (issue 64, WCAG 2.2 AA, 1.4.1 and 1.4.11): the series of a bar
chart differ by fill pattern as well as colour; the right answer is ticked and patterned, not only
green; the candidates the rules cut are hatched and outlined at 3:1, not only grey; the losses'
lines differ by dash; the flash page's note is written at 4.5:1 on white."""

from types import SimpleNamespace

import numpy as np
import plotly.graph_objects as go
import pytest

from core import tiny
from core.variants.flash import flash_attention, rescales, showing_tile
from ui.figures.bars import answer_bars, grouped_bars, probability_bars
from ui.figures.lines import histograms
from ui.figures.palette import BLUE, LINE_COLOURS, VERMILLION, WHITE, contrast

SAMPLES = np.random.default_rng(64).normal(size=(3, 500))


def cues(trace) -> list[tuple]:
    """What tells each bar of a bar trace apart besides its colour: its pattern, its outline
    (colour where it has a width) and its label, one tuple per bar."""
    n = len(trace.y)

    def each(value) -> list:
        return list(value) if isinstance(value, (list, tuple)) else [value] * n

    shapes = each(trace.marker.pattern.shape or "")
    width = trace.marker.line.width or 0
    outlines = each(trace.marker.line.color) if width else [None] * n
    return [(shape or "", outline, str(x)) for shape, outline, x in zip(shapes, outlines, trace.x)]


def series_patterns(fig) -> list[str]:
    """Each bar trace's one pattern (a trace's bars all share it)."""
    patterns = []
    for trace in fig.data:
        assert trace.type == "bar" and trace.showlegend is not False  # the legend shows it
        shapes = {shape for shape, _, _ in cues(trace)}
        assert len(shapes) == 1, shapes
        patterns.append(shapes.pop())
    return patterns


def _grouped(count: int):
    series = {f"s{i}": np.arange(4.0) - i for i in range(count)}
    return grouped_bars([str(i) for i in range(4)], series, "parts", "layer")


MULTI = [(f"grouped, {n} series", _grouped(n)) for n in (2, 3, 6, 8)] + [
    ("histograms, /scaling's two", histograms({"raw": SAMPLES[0] * 3, "scaled": SAMPLES[1]},
                                              title="", x_title="", colours=(VERMILLION, BLUE))),
    ("histograms, three", histograms(dict(zip("abc", SAMPLES)), title="", x_title="")),
]  # fmt: skip


@pytest.mark.parametrize("name, fig", MULTI, ids=[name for name, _ in MULTI])
def test_every_series_of_a_bar_chart_has_its_own_pattern(name, fig):
    patterns = series_patterns(fig)
    assert len(patterns) >= 2 and len(set(patterns)) == len(patterns), (name, patterns)
    colours = [trace.marker.color for trace in fig.data][: len(LINE_COLOURS)]
    assert len(set(colours)) == len(colours), (name, colours)  # and still its colour (to six)


def test_the_pattern_check_fails_on_bars_told_apart_by_colour_only():
    """The control: two series in two colours and nothing else, as grouped_bars drew them."""
    plain = go.Figure([go.Bar(x=["1"], y=[1.0], marker_color=c) for c in LINE_COLOURS[:2]])
    assert len(set(series_patterns(plain))) == 1


@pytest.mark.parametrize("right", [0, 2, 3])
def test_the_right_answer_is_ticked_and_patterned_not_only_green(right):
    labels = ["A", "B", "C", "D"]
    fig = answer_bars(labels, [3, 5, 0, 2], right, "answers")
    (bar,) = fig.data
    marks = [(shape, outline) for shape, outline, _ in cues(bar)]
    others = marks[:right] + marks[right + 1 :]
    assert marks[right] not in others and len(set(others)) == 1  # its pattern: only it
    ticked = [str(x).startswith("✓") for x in bar.x]
    assert ticked == [i == right for i in range(4)], bar.x  # and its label: only it
    assert str(bar.x[right]).endswith(labels[right])  # the answer is still named
    colours = list(bar.marker.color)
    assert colours[right] != colours[right - 1]  # and green still


def test_before_the_reveal_every_answer_looks_alike():
    (bar,) = answer_bars(["A", "B", "C"], [1, 2, 3], None, "answers").data
    assert len({(shape, outline) for shape, outline, _ in cues(bar)}) == 1
    assert list(bar.x) == ["A", "B", "C"] and len(set(bar.marker.color)) == 1


@pytest.mark.parametrize("kept", [[True] * 3 + [False] * 7, [True, False, True, False]])
def test_the_cut_candidates_are_hatched_and_outlined_not_only_grey(kept):
    p = np.linspace(0.4, 0.01, len(kept))
    (bar,) = probability_bars([f"w{i}" for i in range(len(kept))], p, kept, "next", "p").data
    marks = cues(bar)
    cut = {marks[i][:2] for i, keep in enumerate(kept) if not keep}
    kept_marks = {marks[i][:2] for i, keep in enumerate(kept) if keep}
    assert len(cut) == len(kept_marks) == 1 and not cut & kept_marks
    (shape, outline), (kept_shape, _) = cut.pop(), kept_marks.pop()
    assert shape and shape != kept_shape  # a pattern of their own
    assert contrast(outline, WHITE) >= 3.0, outline  # an outline that reads on the page (1.4.11)
    assert contrast(bar.textfont.color, WHITE) >= 4.5  # the printed values: text at 4.5:1
    assert list(bar.text) == [f"{v:.3f}" for v in p]


def test_kept_candidates_alone_carry_no_pattern():
    """/inside's bars: every candidate kept, so none hatched."""
    (bar,) = probability_bars(["a", "b"], [0.7, 0.3], [True, True], "before", "p").data
    assert {shape for shape, _, _ in cues(bar)} == {""}


def test_the_flash_pages_rescale_note_reads_at_4_5_to_1():
    from ui.views.flash import _scores
    from ui.work.traces import TraceKey, sentence_trace

    data = sentence_trace(TraceKey("the cat sat on the mat", "auto", 8, 2, 0, True, "none"))
    Q, K, V = data.trace.Q[0], data.trace.K[0], data.trace.V[0]
    tile = showing_tile(Q, K, V)
    _, steps = flash_attention(Q, K, V, tile, tile, record=True)
    step = next(s for s in steps if rescales(s).any())
    fig = _scores(data, SimpleNamespace(base=1, decimals=2), step)
    (note,) = fig.layout.annotations
    assert contrast(note.font.color, WHITE) >= 4.5, note.font.color


@pytest.mark.parametrize("task", sorted(tiny.TASKS))
def test_the_losses_lines_differ_by_dash_alone(task):
    """Their markers are 2 px: each line its own dash (the repeat's two losses and chance)."""
    from ui.views.train.curves import loss_figure

    rows = np.column_stack([np.arange(0, 50, 10), np.linspace(3, 1, 5), np.linspace(3, 0.5, 5)])
    fig = loss_figure(tiny.TASKS[task], rows, drop=20)
    dashes = [trace.line.dash for trace in fig.data]
    assert len(dashes) == (3 if tiny.TASKS[task].train_all else 2)
    assert len(set(dashes)) == len(dashes), dashes
