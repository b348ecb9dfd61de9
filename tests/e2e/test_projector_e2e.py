"""Projector mode (?big=true) read from the back row, in both languages, at 1280 x 720 and
1920 x 1080: every walkthrough step (every chart of a wide step, paged with ◀ ▶) whole on the
screen, its cell values at 24 px or more (n <= 8), its ticks, axis titles, colour bar, legend and
row sums at 18 px or more, its title inside the chart and not covered, the band over it one
line, the code wrapped rather than cut; ← and → step (through a wide step's charts first)."""

import pytest

from tests.e2e.conftest import SHOTS
from ui.views.walkthrough.steps import BY_NAME
from ui.views.walkthrough.steps import NAMES as STEPS

CELL_PX, TEXT_PX = 24, 18  # the least for the back row (issue 24), not the app's own constants
# the vertical centres of what the projector's band holds: one line when they agree
ONE_LINE = """() => [...document.querySelector(".st-key-projector_band").children]
  .map(c => c.getBoundingClientRect()).filter(r => r.width > 0).map(r => r.y + r.height / 2)"""

# What a projector shows of the charts on screen (a chart in a closed expander is not shown):
# each one's box, the least font size of its cell values and of its other text, and each title's
# box and whether something else covers it; and every code block's scroll and client widths.
MEASURE = """() => {
  const px = el => parseFloat(getComputedStyle(el).fontSize);
  const box = el => { const r = el.getBoundingClientRect();
    return {x: r.x, y: r.y, right: r.right, bottom: r.bottom, width: r.width, height: r.height}; };
  const least = els => els.length ? Math.min(...els.map(px)) : null;
  const shown = el => el.textContent.trim() && el.getBoundingClientRect().width > 0;
  const charts = [...document.querySelectorAll("[data-testid=stPlotlyChart]")]
    .filter(c => !c.closest("details:not([open])") && c.getBoundingClientRect().width > 0);
  return {
    charts: charts.map(c => {
      const texts = [...c.querySelectorAll("svg text")].filter(shown);
      const cells = texts.filter(t => t.closest(".heatmaplayer"));
      const titles = texts.filter(t => t.classList.contains("gtitle")).map(t => {
        const r = t.getBoundingClientRect();
        const on = document.elementFromPoint(r.x + Math.min(12, r.width / 2), r.y + r.height / 2);
        return {text: t.textContent, box: box(t), covered: !(on && c.contains(on))};
      });
      return {box: box(c), cells: least(cells), rest: least(texts.filter(t => !cells.includes(t))),
              titles, title: c.querySelector(".gtitle")?.textContent ?? ""};
    }),
    code: [...document.querySelectorAll("[data-testid=stMain] pre")]
      .map(p => [p.scrollWidth, p.clientWidth]),
  };
}"""


def settled(s) -> dict:
    """The measurements once two readings half a second apart agree (the charts take the free
    height a moment after they are drawn)."""
    before = None
    for _ in range(20):
        now = s.page.evaluate(MEASURE)
        if now == before and now["charts"]:
            return now
        before = now
        s.page.wait_for_timeout(500)
    raise AssertionError(f"the page did not settle: {now}")


def check_screen(seen: dict, where: str, width: int, height: int) -> None:
    assert seen["charts"], f"{where}: no chart on screen"
    for chart in seen["charts"]:
        b, name = chart["box"], f"{where} «{chart['title']}»"
        assert b["y"] >= 0 and b["bottom"] <= height and b["right"] <= width, f"{name}: {b}"
        if chart["cells"] is not None:  # the default sentence: n = 5, d_model = 8
            assert chart["cells"] >= CELL_PX, f"{name}: cell values {chart['cells']} px"
        assert chart["rest"] >= TEXT_PX, f"{name}: ticks or notes {chart['rest']} px"
        for title in chart["titles"]:
            t = title["box"]
            inside = t["y"] >= b["y"] and t["bottom"] <= b["bottom"] and t["x"] >= b["x"] - 1
            assert inside and t["right"] <= b["right"] + 1, f"{name}: title clipped {t} in {b}"
            assert not title["covered"], f"{name}: title covered"
    for scroll, client in seen["code"]:
        assert scroll <= client + 1, f"{where}: code cut at the right ({scroll} > {client} px)"


@pytest.mark.e2e
@pytest.mark.parametrize("width, height", [(1280, 720), (1920, 1080)])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_step_reads_from_the_back_row(session, lang, width, height):
    s = session(width=width, height=height)
    sizes = []
    for step in STEPS:
        s.open(f"/?big=true&lang={lang}&step={step}&mask=causal")
        s.wait_charts()
        parts = BY_NAME[step].parts or ("",)
        for index, part in enumerate(parts):
            if index:  # the wide step's next chart
                s.page.locator(".st-key-next_part button").first.click()
                s.page.wait_for_function(
                    "p => document.querySelector('.st-key-part_band [data-testid=stMarkdown]')"
                    "?.textContent.trim().startsWith(p + ' ·')",
                    arg=part,
                )
                s.wait_idle()
            seen = settled(s)
            check_screen(seen, f"{lang} {width}x{height} {step} {part}", width, height)
            sizes.append((step, part, [(c["cells"], c["rest"]) for c in seen["charts"]]))
            if index == 0 and (width, height) == (1280, 720) and step in SHOWN:
                s.page.screenshot(path=str(SHOTS / f"projector-{lang}-{step}-{width}x{height}.png"))
            if (width, height) == (1920, 1080) and step == "scores" and lang == "zh":
                s.page.screenshot(path=str(SHOTS / f"projector-{lang}-{step}-{width}x{height}.png"))
        sidebar = s.page.get_by_test_id("stSidebar").bounding_box()
        assert sidebar is None or sidebar["x"] + sidebar["width"] <= 1, sidebar  # folded away
        assert s.page.locator(".st-key-projector_band .st-key-row_band").count() == (
            1 if BY_NAME[step].focus or BY_NAME[step].per_head else 0
        ), f"{step}: the pickers are not in the band"
        centres = s.page.evaluate(ONE_LINE)  # the band's title (and formula), then its pickers
        assert max(centres) - min(centres) <= 12, f"{lang} {step}: the band wraps {centres}"
    print(lang, width, height, sizes)  # (cell px, least other px) of each chart, for the record
    s.assert_healthy()


SHOWN = ("scores", "qkv", "softmax", "heads", "block")


@pytest.mark.e2e
def test_arrow_keys_move_between_steps_even_after_a_button_was_pressed(session):
    s = session(width=1280, height=720).open("/?big=true&lang=en&step=scores")
    s.wait_charts()
    s.page.get_by_text("Scores", exact=False).first.click()  # the page has the keyboard focus
    for key, step in (("ArrowRight", "scaled"), ("ArrowLeft", "scores"), (None, "scaled"),
                      ("ArrowRight", "mask")):  # fmt: skip
        if key is None:  # ▶ pressed: the focus stays on that button, and the arrows still step
            s.page.locator(".st-key-next_step button").click()
        else:
            s.page.keyboard.press(key)
        s.page.wait_for_url(f"**step={step}**", timeout=15000)
        s.wait_idle()
    s.assert_healthy()


@pytest.mark.e2e
def test_arrow_keys_page_through_a_wide_steps_charts_then_step(session):
    s = session(width=1280, height=720).open("/?big=true&lang=zh&step=qkv")
    s.wait_charts()
    s.page.locator(".st-key-part_band [data-testid=stMarkdown]").click()  # not on a button

    def title() -> str:
        s.wait_idle()
        return settled(s)["charts"][0]["title"]

    assert title().startswith("Q")
    for key, first in (("ArrowRight", "K"), ("ArrowRight", "V"), ("ArrowLeft", "K")):
        s.page.keyboard.press(key)
        s.page.wait_for_function(
            "t => document.querySelector('[data-testid=stPlotlyChart] .gtitle')"
            "?.textContent.startsWith(t)",
            arg=first,
        )
        assert title().startswith(first), key
    s.page.keyboard.press("ArrowRight")
    s.page.wait_for_function(
        "() => document.querySelector('[data-testid=stPlotlyChart] .gtitle')"
        "?.textContent.startsWith('V')"
    )
    assert title().startswith("V")
    s.page.keyboard.press("ArrowRight")  # past V: the next step
    s.page.wait_for_url("**step=scores**", timeout=15000)
    assert title().startswith("S")
    s.assert_healthy()
