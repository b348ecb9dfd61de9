"""Sidebar settings a page does not read are folded away there: in a closed expander that names
them, drawn disabled inside it so they keep their values for the other pages; what the page does
read stays in the open. On the walkthrough every setting applies and nothing is folded."""

import pytest

from tests.support.app import run_app
from ui.kit.i18n import t
from ui.kit.settings import BY_URL, LAYER, SIDEBAR
from ui.shell.registry import PAGES, by_script, script_path

KINDS = ("text_input", "selectbox", "number_input", "toggle", "radio", "slider")
FOLD = {"en": "this page does not use", "zh": "本页不用的"}


def widgets(block) -> dict:
    """The setting widgets in ``block`` (the sidebar, or its fold), by key."""
    return {w.key: w for kind in KINDS for w in block.get(kind) if w.key}


def _folds(at, lang: str) -> list:
    """The sidebar's expanders but the accessibility statement, which every page has at its foot."""
    return [e for e in at.sidebar.expander if e.label != t("a11y.statement_title", lang)]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("script", ["hand-check", "masks", "projections"])
def test_a_page_folds_away_the_settings_it_does_not_use(script, lang):
    at = run_app(script, lang=lang)
    assert not at.exception
    unused = by_script(script).unused
    (fold,) = _folds(at, lang)
    assert FOLD[lang] in fold.label and str(len(unused)) in fold.label
    assert fold.proto.expanded is False  # closed: the sidebar shows only what applies
    inside = widgets(fold)
    assert set(inside) == {BY_URL[name].state_key for name in unused}
    assert all(w.disabled for w in inside.values())
    note = fold.caption[0]  # opened, the fold first says what it holds, by their names
    for name in unused:
        assert t(BY_URL[name].label, lang) in note.value
    live = {k: w for k, w in widgets(at.sidebar).items() if k not in inside}
    assert set(live) == {s.state_key for s in SIDEBAR if s.in_url not in unused}
    assert not any(w.disabled for w in live.values())  # what the page does read stays live
    assert not at.sidebar.info  # no greyed-out list under a note


def test_walkthrough_keeps_every_setting_live_and_folds_nothing():
    at = run_app(lang="en")
    assert not at.sidebar.info and not _folds(at, "en")
    drawn = widgets(at.sidebar)
    assert {s.state_key for s in SIDEBAR} <= set(drawn)
    assert not any(w.disabled for w in drawn.values())


def test_a_folded_setting_keeps_its_value_for_the_other_pages():
    at = run_app(lang="en")
    at.text_input(key="sentence").input("the cat sat").run()
    at.selectbox(key="d_model").set_value(16).run()
    at.switch_page(script_path("hand-check")).run()
    (fold,) = _folds(at, "en")
    assert fold.text_input(key="sentence").value == "the cat sat"
    at.switch_page(script_path("walkthrough")).run()
    assert at.text_input(key="sentence").value == "the cat sat"
    assert at.selectbox(key="d_model").value == 16


def test_every_unused_setting_is_a_real_sidebar_setting():
    for page in PAGES:
        assert set(page.unused) <= set(LAYER), page.script
