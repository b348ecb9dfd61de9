"""Sidebar settings a page does not read are set aside there (disabled, under a note), in both
languages; on the walkthrough every setting applies."""

import pytest

from tests.support.app import run_app
from ui.kit.settings import LAYER
from ui.shell.registry import PAGES

WIDGETS = {"sentence": "text_input", "d_model": "selectbox", "n_heads": "selectbox",
           "seed": "number_input", "pe": "toggle"}  # fmt: skip


@pytest.mark.parametrize("lang, note", [("en", "This page does not use"), ("zh", "本页不使用")])
def test_hand_check_sets_the_layer_settings_aside(lang, note):
    at = run_app("hand-check", lang=lang)
    assert not at.exception
    infos = [i.value for i in at.sidebar.info]
    assert any(note in text for text in infos), infos
    for key, kind in WIDGETS.items():
        assert getattr(at.sidebar, kind)(key=key).disabled, key
    assert not at.sidebar.slider(key="decimals").disabled  # what the page does read stays live


def test_walkthrough_keeps_every_setting_live():
    at = run_app(lang="en")
    assert not at.sidebar.info
    for key, kind in WIDGETS.items():
        assert not getattr(at.sidebar, kind)(key=key).disabled, key


def test_every_unused_setting_is_a_real_sidebar_setting():
    for page in PAGES:
        assert set(page.unused) <= set(LAYER), page.script
