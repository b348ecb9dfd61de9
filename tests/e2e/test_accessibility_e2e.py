"""axe-core's WCAG 2.0/2.1/2.2 A and AA rules on every page of the registry, in both languages,
on a laptop (1400 x 900), a phone (390 x 844) and the projector (1280 x 720, ?big=true): no
critical and no serious violation (issue 64). One browser context per screen, its pages visited
one after the other; a failure names the page, the language and the screen, and lists each rule
with its node count and first targets."""

import pytest

from tests.support import axe
from ui.kit.i18n import t
from ui.shell.a11y import HTML_LANG, STREAMLIT_WORDS, help_for
from ui.shell.registry import PAGES

LANGS = ("zh", "en")


@pytest.fixture(scope="module", params=list(axe.VIEWPORTS))
def screen(request, browser):
    """(viewport name, a browser tab) for one screen, reused by all its pages and languages."""
    options, _ = axe.VIEWPORTS[request.param]
    context = browser.new_context(locale="en-US", **options)
    yield request.param, context.new_page()
    context.close()


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("entry", PAGES, ids=[page.url or "walkthrough" for page in PAGES])
def test_no_critical_or_serious_violation(app_url, screen, entry, lang):
    viewport, tab = screen
    path = axe.address(entry, lang, viewport)
    axe.open_drawn(tab, app_url + path, entry, viewport)
    report = axe.run(tab)
    bad = report.count("critical") + report.count("serious")
    assert bad == 0, (
        f"{path} at {viewport}: axe-core {axe.version()} finds {report.count('critical')}"
        f" critical and {report.count('serious')} serious nodes\n{report.describe()}"
    )
    facts = tab.evaluate(FACTS)
    assert facts["lang"] == HTML_LANG[lang], f"{path}: <html lang={facts['lang']!r}>"
    assert t(entry.nav_key, lang) in facts["title"], f"{path}: title {facts['title']!r}"
    unnamed = [chart for chart in facts["charts"] if not (chart["img"] and chart["name"])]
    assert not unnamed, f"{path} at {viewport}: charts with no name: {unnamed}"
    untabled = [chart["name"][:60] for chart in facts["charts"] if not chart["table"]]
    assert not untabled, f"{path} at {viewport}: charts with no table: {untabled}"
    left = [name for name in facts["names"] if in_the_other_language(name, lang)]
    assert not left, f"{path} at {viewport}: Streamlit's words not in the page's language: {left}"
    assert t("a11y.st_app_pages", lang) in facts["names"], facts["names"]  # (every page's menu)


def in_the_other_language(name: str, lang: str) -> bool:
    """Whether ``name`` is one of Streamlit's words for its controls (ui/shell/a11y.py) as the
    other language says it, not as ``lang`` does."""
    other = next(code for code in LANGS if code != lang)
    words = {t(key, other) for key in STREAMLIT_WORDS} - {t(key, lang) for key in STREAMLIT_WORDS}
    head, tail = help_for(other).split("{label}")
    return name in words or (name.startswith(head) and name.endswith(tail) and head != tail)


# each chart: an img with a name (ui/shell/a11y.py), and its table in the same chart container;
# every control's name, and the skip link's text
FACTS = """() => ({
  lang: document.documentElement.lang, title: document.title,
  names: [...document.querySelectorAll('[aria-label]')].map((el) => el.getAttribute('aria-label'))
    .concat([...document.querySelectorAll('a[href="#stMain"]')].map((link) => link.textContent)),
  charts: [...document.querySelectorAll('[data-testid=stPlotlyChart]')].map((chart) => ({
    img: chart.getAttribute('role') === 'img', name: chart.getAttribute('aria-label') || '',
    table: !!chart.closest('[class*="st-key-chart_"]')?.querySelector('details.chart-alt table'),
  })),
})"""
