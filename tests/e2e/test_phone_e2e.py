"""A phone (390 x 844): the walkthrough's current step shows its chart within the first screen,
the controls sit in compact bands, and the language switch is reachable without the sidebar."""

import pytest


@pytest.mark.e2e
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("step", ["scores", "softmax", "av"])
def test_the_steps_chart_starts_within_the_first_screen(session, lang, step):
    s = session(width=390, height=844).open(f"/?lang={lang}&step={step}&mask=causal")
    s.wait_charts()
    box = s.page.get_by_test_id("stPlotlyChart").first.bounding_box()
    assert box["y"] < 844 - 200, f"the chart starts at {box['y']} px"  # its top part is visible
    for key in ("prev_step", "next_step"):  # Previous and Next in one row
        assert s.page.locator(f".st-key-{key}").bounding_box()["height"] < 60
    prev_box = s.page.locator(".st-key-prev_step").bounding_box()
    next_box = s.page.locator(".st-key-next_step").bounding_box()
    assert abs(prev_box["y"] - next_box["y"]) < 5
    if step == "softmax":
        s.shot(f"phone-{lang}-softmax")
    s.assert_healthy()


@pytest.mark.e2e
def test_language_switch_without_opening_the_sidebar(session):
    s = session(width=390, height=844).open("/?lang=en&step=softmax")
    sidebar = s.page.get_by_test_id("stSidebar").bounding_box()
    assert sidebar is None or sidebar["x"] + sidebar["width"] <= 1  # folded away on a phone
    switch = s.page.locator(".st-key-lang_band")
    s.page.wait_for_function(
        "getComputedStyle(document.querySelector('.st-key-lang_band')).position === 'fixed'"
    )
    box = switch.bounding_box()
    assert box and 0 <= box["x"] and box["x"] + box["width"] <= 390 and box["y"] < 80
    switch.get_by_text("中文").click()
    s.page.wait_for_url("**lang=zh**", timeout=15000)
    s.wait_idle()
    assert "注意力权重" in s.page.get_by_test_id("stMain").inner_text()
    s.assert_healthy()


HIDDEN_LABELS = (
    "[...document.querySelectorAll('[class*=st-key-dense_] g.heatmap-label')]"
    ".map(g => getComputedStyle(g).display)"
)


@pytest.mark.e2e
@pytest.mark.parametrize("width, shown", [(390, False), (1400, True)])
def test_a_wide_heatmap_prints_its_values_only_where_they_can_be_read(session, width, shown):
    s = session(width=width, height=844).open("/?lang=en&step=tokens&d_model=12")
    s.wait_charts()
    displays = s.page.evaluate(HIDDEN_LABELS)
    assert displays, "the 12-column E is marked dense"
    assert all((d != "none") == shown for d in displays), displays
