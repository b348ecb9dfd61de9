"""Meaning above the fold: on every walkthrough step, in both languages, on a laptop (1400 × 900)
and a phone (390 × 844), the step's one-sentence lead and the chart's focus row (or the chart's
top, on the steps without one) lie within the first screen; on the laptop the first chart lies
there whole."""

import pytest

from ui.views.walkthrough.steps import NAMES

IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
POSITIONS = """() => {
  const main = document.querySelector('[data-testid=stMain]');
  const lead = main.querySelector('.st-key-step_lead');
  const plot = main.querySelector('.js-plotly-plot');
  let focus = null;
  for (const el of main.querySelectorAll('.js-plotly-plot')) {
    const layout = el._fullLayout;
    const box = (layout?.shapes ?? []).find(
      s => s.type === 'rect' && s.line?.width === 2.5 && s.x0 === -0.5 && s.y1 - s.y0 === 1);
    if (box) {
      const edge = Math.max(layout.yaxis.l2p(box.y0), layout.yaxis.l2p(box.y1));
      focus = el.getBoundingClientRect().top + layout._size.t + edge;
      break;
    }
  }
  return {lead: lead && lead.getBoundingClientRect().bottom,
          chart: plot && plot.getBoundingClientRect().top,
          chartBottom: plot && plot.getBoundingClientRect().bottom, focus};
}"""


def _settled(page) -> dict:
    """The positions once two readings half a second apart agree (fonts and charts settle)."""
    before = None
    for _ in range(30):
        page.wait_for_timeout(500)
        at = page.evaluate(POSITIONS)
        if at == before:
            return at
        before = at
    return at


@pytest.mark.e2e
@pytest.mark.parametrize("width, height", [(1400, 900), (390, 844)])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_steps_lead_and_focus_row_are_on_the_first_screen(session, lang, width, height):
    s = session(width=width, height=height)
    for step in NAMES:
        s.page.goto(s.base + f"/?lang={lang}&step={step}")
        s.page.wait_for_selector(IDLE, state="attached", timeout=90000)  # a loaded machine is slow
        s.wait_charts(timeout=60000)
        at = _settled(s.page)
        assert at["lead"] is not None, f"{step}: no lead"
        assert at["lead"] < height, f"{step}: the lead ends at y = {at['lead']:.0f}"
        bottom = at["focus"] if at["focus"] is not None else at["chart"]
        assert bottom is not None and bottom < height, f"{step}: focus row / chart at {bottom}"
        if step in ("scores", "softmax", "av"):
            assert at["focus"] is not None, f"{step}: the focus row is boxed"
        if width >= 1000 and at["chartBottom"] is not None:  # a laptop: the first chart whole
            assert at["chartBottom"] <= height, f"{step}: the chart ends at {at['chartBottom']}"
    s.assert_healthy()
