"""The K/V groups' figure (ui/figures/groups.py) on its own: one figure whose rows are the query
heads in order, a band per K/V head (head j in band j // group), the band's name once at its
right, a line between bands; column labels that fit a phone's width upright; and a text
alternative that names every row by its query head and its K/V head, in both languages."""

import numpy as np
import pytest

from ui.figures.alt_text import chart_text
from ui.figures.groups import kv_groups
from ui.figures.heatmaps import text_em
from ui.figures.palette import TICK_PX

KEYS = ("The", " cat", " sat", " on", " the", " mat", " because", " it")


def _figure(heads: int, n_kv: int, keys=KEYS, lang_row="query head {} · K/V head {}"):
    rng = np.random.default_rng(heads)
    weights = rng.dirichlet(np.ones(len(keys)), size=heads)
    group = heads // n_kv
    labels = (
        tuple(str(h + 1) for h in range(heads)),
        keys,
        tuple(f"K/V {g + 1}" for g in range(n_kv)),
        tuple(lang_row.format(h + 1, h // group + 1) for h in range(heads)),
    )
    fig = kv_groups(weights, n_kv, labels, title="Layer 12: the last token's weights",
                    decimals=2, titles=("query head", "key"), phone_px=366,
                    label_px=TICK_PX)  # fmt: skip
    return weights, fig


@pytest.mark.parametrize(("heads", "n_kv"), [(9, 3), (4, 1), (8, 4)])
def test_each_band_is_its_k_v_heads_query_heads(heads, n_kv):
    weights, fig = _figure(heads, n_kv)
    group = heads // n_kv
    z = np.asarray(fig.data[0].z, dtype=float)
    np.testing.assert_allclose(z, weights, atol=1e-6)  # row h: head h, in order
    names = [a for a in fig.layout.annotations if a.text.startswith("K/V")]
    assert [a.text for a in names] == [f"K/V {g + 1}" for g in range(n_kv)]  # once each
    for g, name in enumerate(names):
        rows = [h for h in range(heads) if h // group == g]
        assert name.y == pytest.approx(np.mean(rows))  # in the middle of exactly its heads
    between = sorted(s.y0 for s in fig.layout.shapes if s.type == "line" and s.y0 == s.y1)
    assert between == [g * group - 0.5 for g in range(1, n_kv)]
    brackets = [s for s in fig.layout.shapes if s.type == "line" and s.y0 != s.y1]
    assert [(round(s.y0), round(s.y1)) for s in brackets] == [
        (g * group, (g + 1) * group - 1) for g in range(n_kv)
    ]


def test_the_column_labels_fit_a_phone_upright():
    """Each shown label fits its share of the cells' width on a 390-px phone (the chart 366 px
    wide, less the row labels and the bands' names), so none runs into the next."""
    _, fig = _figure(9, 3, keys=tuple(f" word{i}" for i in range(16)))
    axis = fig.layout.xaxis
    assert axis.tickangle == 0
    margin = fig.layout.margin
    cells = 366 - margin.l - margin.r
    column = cells / 16
    shown = list(axis.tickvals)
    for a, b in zip(shown, shown[1:]):
        left, right = axis.ticktext[shown.index(a)], axis.ticktext[shown.index(b)]
        room = (b - a) * column
        assert (text_em(left) + text_em(right)) / 2 * TICK_PX <= room + 0.5, (left, right)


@pytest.mark.parametrize(
    ("lang", "row"), [("en", "query head {} · K/V head {}"), ("zh", "查询头 {} · K/V 头 {}")]
)
def test_its_text_alternative_names_each_row_by_both_heads(lang, row):
    weights, fig = _figure(9, 3, lang_row=row)
    text = chart_text(fig, lang)
    assert [r[0] for r in text.rows] == [row.format(h + 1, h // 3 + 1) for h in range(9)]
    assert list(text.headers[1]) == list(KEYS)
    first = text.rows[0][1:]
    assert [float(x) for x in first] == pytest.approx(weights[0], abs=6e-3)
    assert row.format(1, 1) in text.name
