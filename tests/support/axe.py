"""axe-core, Deque's accessibility rules engine, run on a Playwright page (issue 64).

The engine is the axe.min.js that PyPI's axe-playwright-python ships (requirements-dev.txt pins
it; axe-core 4.12.1 in its 0.1.8): only that file is read, from where pip put the package, and
injected into the page; the package's Python is not imported. The rules run are WCAG 2.0, 2.1
and 2.2 A and AA (``TAGS``); the violations come back per node, grouped by impact."""

from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from importlib.util import find_spec
from pathlib import Path

PACKAGE = "axe_playwright_python"  # pip's axe-playwright-python
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
IMPACTS = ("critical", "serious", "moderate", "minor")

RUN = """async (tags) => {
  const result = await axe.run(document, {
    runOnly: {type: 'tag', values: tags},
    resultTypes: ['violations'],  // passes and incomplete: one node each, not every node
  });
  return result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({
      impact: n.impact || v.impact, target: n.target.map(String), html: n.html,
      summary: n.failureSummary || '',
    })),
  }));
}"""


def script_path() -> Path:
    spec = find_spec(PACKAGE)  # finds the package without running its __init__
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(
            "axe-core is not installed: .venv/bin/pip install -r requirements-dev.txt"
            " (it comes with axe-playwright-python)"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "axe.min.js"


@cache
def script() -> str:
    return script_path().read_text(encoding="utf-8")


def version() -> str:
    """axe-core's version, from the file's first line: '/*! axe v4.12.1'."""
    first = script().split("\n", 1)[0]
    return first.removeprefix("/*! axe v").strip()


@dataclass(frozen=True)
class Node:
    rule: str
    impact: str
    help: str
    target: str  # the CSS selector axe gives (one per frame level, joined with " >> ")
    html: str
    summary: str  # axe's failure summary: what to fix


@dataclass
class Report:
    nodes: list[Node] = field(default_factory=list)

    def by_impact(self) -> dict[str, list[Node]]:
        grouped = {impact: [] for impact in IMPACTS}
        for node in self.nodes:
            grouped.setdefault(node.impact, []).append(node)
        return grouped

    def count(self, impact: str) -> int:
        return sum(node.impact == impact for node in self.nodes)

    def rules(self, impacts=IMPACTS) -> Counter:
        """Nodes per rule id, among the given impacts, most first."""
        return Counter(node.rule for node in self.nodes if node.impact in impacts)

    def describe(self, impacts=("critical", "serious"), targets: int = 3) -> str:
        """Per rule: its impact, node count, what it checks, and its first targets with their
        HTML and axe's summary."""
        lines = []
        for rule, count in self.rules(impacts).most_common():
            nodes = [node for node in self.nodes if node.rule == rule and node.impact in impacts]
            lines.append(f"{rule} ({nodes[0].impact}, {count} nodes): {nodes[0].help}")
            for node in nodes[:targets]:
                summary = " ".join(node.summary.split())
                lines.append(f"    {node.target}  {_short(node.html)}  | {_short(summary, 160)}")
            if count > targets:
                lines.append(f"    … {count - targets} more")
        return "\n".join(lines)


def _short(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def run(page, tags=TAGS) -> Report:
    """axe-core on the page as it is now (injected once per document)."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(content=script())
    report = Report()
    for rule in page.evaluate(RUN, tags):
        for node in rule["nodes"]:
            report.nodes.append(
                Node(
                    rule=rule["id"],
                    impact=node["impact"] or "minor",
                    help=rule["help"],
                    target=" >> ".join(node["target"]),
                    html=node["html"],
                    summary=node["summary"],
                )
            )
    return report


# The three screens a class uses (issue 64): a laptop, a phone, and the projector in its own
# mode. Each: Playwright's context options and the URL settings it adds.
VIEWPORTS = {
    "1400x900": ({"viewport": {"width": 1400, "height": 900}}, ""),
    "phone-390x844": (
        {
            "viewport": {"width": 390, "height": 844},
            "is_mobile": True,  # the phone's layout viewport and touch, as a phone's browser
            "has_touch": True,
            "device_scale_factor": 3,
        },
        "",
    ),
    "projector-1280x720": ({"viewport": {"width": 1280, "height": 720}}, "big=true"),
}
MODEL_READY = "#heads-off, #next-token, #backward"  # the model pages' sections, once it loaded

# The page is drawn: its script finished, every chart has its SVG, no model progress bar, at
# least ``least`` charts' SVGs (the registry's count, as tests/e2e/test_pages_e2e.py waits for
# them: a chart has two or three), and the main area's size and text unchanged since last time.
DRAWN = """([least, lang]) => {
  if (lang && document.documentElement.lang !== lang) return false;  // the a11y script has run
  const app = document.querySelector('[data-testid=stApp]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  const charts = [...document.querySelectorAll('[data-testid=stPlotlyChart]')];
  const svgs = document.querySelectorAll('[data-testid=stPlotlyChart] .main-svg').length;
  if (svgs < least || charts.some(c => !c.querySelector('.main-svg'))) return false;
  const bars = [...document.querySelectorAll('[data-testid=stProgress]')];
  if (bars.some(b => /Gemma|SmolLM/.test(b.textContent))) return false;
  // nothing fading in or out: a stale element is dimmed, and a fade under way is read by axe as
  // the colours it has at that moment (a caption at 3.88:1 halfway through a cold start's fade)
  if (document.querySelector('[data-stale=true]')) return false;
  const fading = document.getAnimations().filter(a => a.playState === 'running'
    && a.effect && a.effect.getTiming().iterations !== Infinity);
  if (fading.length) return false;
  const main = document.querySelector('[data-testid=stMain]');
  const now = `${charts.length} ${main ? main.scrollHeight : 0} ${document.body.innerText.length}`;
  if (now !== window.__a11yLast) { window.__a11yLast = now; return false; }
  return true;
}"""


def address(entry, lang: str, viewport: str) -> str:
    """A registry row's path with its e2e settings, the language and the viewport's settings."""
    query = [f"lang={lang}", entry.query, VIEWPORTS[viewport][1]]
    return f"/{entry.url}?" + "&".join(part for part in query if part)


STATE = """() => {
  const app = document.querySelector('[data-testid=stApp]');
  const charts = [...document.querySelectorAll('[data-testid=stPlotlyChart]')];
  const bars = [...document.querySelectorAll('[data-testid=stProgress]')].map(b => b.textContent);
  return `script ${app ? app.getAttribute('data-test-script-state') : 'absent'}, ${charts.length}`
    + ` charts (${charts.filter(c => !c.querySelector('.main-svg')).length} undrawn),`
    + ` progress ${JSON.stringify(bars)}`;
}"""


def open_drawn(
    page, url: str, entry, viewport: str, timeout: int = 120_000, lang_set: bool = True
) -> None:
    """Go to ``url`` and wait until the page is drawn in full (see ``DRAWN``); a page that is not
    raises TimeoutError saying what it waited for and what the page showed."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    least = entry.charts if viewport == "1400x900" else min(entry.charts, 1)
    stage = "the app"
    try:
        page.goto(url)
        page.wait_for_selector('[data-testid="stApp"]', timeout=timeout)
        if entry.model:  # Gemma loads in the background first: a progress bar, then the page
            stage = f"the model's sections ({MODEL_READY})"
            page.wait_for_selector(MODEL_READY, timeout=timeout)
        stage = f"the script done, {least} charts drawn and the page still"
        # and the app's a11y script has run: it sets <html lang> (ui/shell/a11y.py); code from
        # before issue 64 (bench/a11y_audit.py --ref) never does
        lang = ("zh-CN" if "lang=zh" in url else "en") if lang_set else ""
        page.wait_for_function(DRAWN, arg=[least, lang], timeout=timeout, polling=300)
    except PlaywrightTimeout:
        raise TimeoutError(
            f"{url}: not drawn in {timeout / 1000:.0f} s, waiting for {stage}; the page: "
            f"{page.evaluate(STATE)}"
        ) from None
