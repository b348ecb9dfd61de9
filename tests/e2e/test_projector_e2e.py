"""Projector mode (?big=true): every walkthrough step's main chart whole on the screen, with
chart text of at least 14 px, in both languages, at 1280 x 720 and 1920 x 1080; ← and → step."""

import pytest

from ui.views.walkthrough.steps import NAMES as STEPS

TEXT_SIZES = (
    "Math.min(...[...document.querySelectorAll('[data-testid=stPlotlyChart] svg text')]"
    ".filter(t => t.textContent.trim()).map(t => parseFloat(getComputedStyle(t).fontSize)))"
)


@pytest.mark.e2e
@pytest.mark.parametrize("width, height", [(1280, 720), (1920, 1080)])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_step_fits_the_projector(session, lang, width, height):
    s = session(width=width, height=height)
    for step in STEPS:
        s.open(f"/?big=true&lang={lang}&step={step}&mask=causal")
        s.wait_charts()
        box = s.page.get_by_test_id("stPlotlyChart").first.bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= height, f"{step}: {box}"
        assert s.page.evaluate(TEXT_SIZES) >= 14, step
        sidebar = s.page.get_by_test_id("stSidebar").bounding_box()
        assert sidebar is None or sidebar["x"] + sidebar["width"] <= 1, sidebar  # folded away
        if step in ("softmax", "qkv") and width == 1280:
            s.shot(f"projector-{lang}-{step}-1280x720")
    s.assert_healthy()


@pytest.mark.e2e
def test_arrow_keys_move_between_steps_even_after_a_button_was_pressed(session):
    s = session(width=1280, height=720).open("/?big=true&lang=en&step=scores")
    s.wait_charts()
    s.page.get_by_text("Scores", exact=False).first.click()  # the page has the keyboard focus
    for key, step in (("ArrowRight", "scaled"), ("ArrowLeft", "scores"), (None, "scaled"),
                      ("ArrowRight", "mask")):  # fmt: skip
        if key is None:  # ▶ pressed: the focus stays on that button, and the arrows still step
            s.page.get_by_role("button", name="▶").click()
        else:
            s.page.keyboard.press(key)
        s.page.wait_for_url(f"**step={step}**", timeout=15000)
        s.wait_idle()
    s.assert_healthy()
