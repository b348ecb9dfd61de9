"""Click a cell of S/√d_k, A or O in a real browser: the focus row follows the click and the
worked-out panel shows that cell's provenance with the real numbers."""

import pytest

from tests.support.numbers import app_oracle
from tests.support.stories import check_cell_story

CELL_CENTRE = """([i, j, key]) => {
  const gd = document.querySelector(`.st-key-${key} .js-plotly-plot`);
  const L = gd._fullLayout, box = gd.getBoundingClientRect();
  return [box.left + L.xaxis._offset + L.xaxis.l2p(j), box.top + L.yaxis._offset + L.yaxis.l2p(i)];
}"""


def _click(s, i, j, key):
    """Click cell (i, j) of the chart drawn with widget key ``key``."""
    x, y = s.page.evaluate(CELL_CENTRE, [i, j, key])
    s.page.mouse.click(x, y)
    s.page.wait_for_timeout(500)
    s.wait_idle()


@pytest.mark.e2e
@pytest.mark.parametrize("lang, title", [("en", "where its number comes from"), ("zh", "怎么来的")])
def test_clicking_a_softmax_cell_shows_its_provenance(session, lang, title):
    s = session().open(f"/?lang={lang}&step=softmax&sentence=a%20b%20c%20d&decimals=4&base=0")
    s.wait_charts()
    _click(s, 1, 2, "fig_softmax")  # query row 1, key 2
    story = s.page.locator(".st-key-cell_story")
    story.wait_for(timeout=15000)
    text = story.inner_text()
    title_line, *lines = text.splitlines()
    assert title in title_line
    # every line, every number: q_1, k_2, their products and sum, ÷ √d_k, the mask entry, the
    # row's exponentials and their sum, a_12, against the oracle
    check_cell_story("softmax", lines, app_oracle("a b c d"), 0, 1, 2, decimals=4, base=0)
    # the focus row picker followed the click
    assert "Query row 1 (“b”)" in s.page.get_by_test_id("stMain").inner_text() or lang == "zh"
    assert "查询行 1（“b”）" in s.page.get_by_test_id("stMain").inner_text() or lang == "en"
    shapes = s.page.evaluate(
        "() => document.querySelectorAll('[data-testid=stPlotlyChart] .js-plotly-plot')[0]"
        ".layout.shapes.map(b => [b.x0, b.y0])"
    )
    assert [1.5, 0.5] in shapes  # the clicked cell (row 1, key 2) is outlined
    s.shot(f"click-cell-{lang}-softmax")
    s.assert_healthy()


@pytest.mark.e2e
def test_clicking_an_output_cell_shows_the_weighted_sum(session):
    s = session().open("/?lang=en&step=av&sentence=a%20b%20c&base=1")
    s.wait_charts()
    _click(s, 0, 1, "fig_av")  # o_1, its second component (numbered from 1), in O = A V
    story = s.page.locator(".st-key-cell_story")
    story.wait_for(timeout=15000)
    _, *lines = story.inner_text().splitlines()
    # o₁[2] = Σⱼ a₁ⱼ vⱼ[2], each weight, each value and each term against the oracle
    check_cell_story("av", lines, app_oracle("a b c"), 0, 0, 1, decimals=2, base=1)
    s.shot("click-cell-en-av")
    s.assert_healthy()
