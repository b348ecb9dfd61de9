"""Across pages: the app starts, every page renders in both languages, and heatmaps are shared
between sessions (a projector's copies apart)."""

import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.support import ROOT
from tests.support.app import PAGE_FILES, page_text, run_app
from ui.figures.heatmaps import heatmap
from ui.figures.place import FILL_TEXT_PX
from ui.kit.i18n import t
from ui.shell.registry import by_script


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("page", list(PAGE_FILES))
def test_every_page_renders_in_both_languages(page, lang):
    at = run_app(page, lang=lang)
    assert not at.exception
    text = page_text(at)
    assert t(by_script(page).title_key, lang) in at.title[0].value
    if lang == "zh":  # the page's own words are Chinese, not English left-overs
        assert "Walkthrough" not in text and "Your answer" not in text
    for chart in at.get("plotly_chart"):  # no Plotly toolbar over a chart's title
        assert json.loads(chart.proto.config) == {"displaylogo": False, "displayModeBar": False}


def test_app_starts():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30).run()
    assert not at.exception
    assert "Self-Attention" in at.title[0].value


def test_heatmaps_are_shared_and_projector_mode_copies_them():
    M = np.array([[0.5, -1.0], [2.0, 0.25]])
    first = heatmap(M, ["a", "b"], ["a", "b"], title="S")
    assert heatmap(M.copy(), ["a", "b"], ["a", "b"], title="S") is first
    assert heatmap(M, ["a", "b"], ["a", "c"], title="S") is not first

    big = run_app(big="true")  # projector mode enlarges fonts on its own copy
    normal = run_app()
    assert not big.exception and not normal.exception

    def fonts(at):
        return [json.loads(c.proto.spec)["layout"].get("font", {}) for c in at.get("plotly_chart")]

    assert fonts(big) and all(f.get("size") == FILL_TEXT_PX for f in fonts(big))  # a step's
    assert all(f.get("size") != FILL_TEXT_PX for f in fonts(normal))
