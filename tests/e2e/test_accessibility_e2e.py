"""axe-core's WCAG 2.0/2.1/2.2 A and AA rules on every page of the registry, in both languages,
on a laptop (1400 x 900), a phone (390 x 844) and the projector (1280 x 720, ?big=true): no
critical and no serious violation (issue 64). One browser context per screen, its pages visited
one after the other; a failure names the page, the language and the screen, and lists each rule
with its node count and first targets."""

import pytest

from tests.support import axe
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
