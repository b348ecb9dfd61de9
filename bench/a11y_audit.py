"""An accessibility audit of the running app (issue 64): every page of the registry in both
languages on three screens (a laptop 1400 x 900, a phone 390 x 844, the projector 1280 x 720 with
?big=true), as a school's accessibility officer would begin one.

Per visit: axe-core's WCAG 2.0/2.1/2.2 A and AA violations (critical, serious, moderate, minor
nodes, and the rule ids); ``<html lang>`` (right: "zh-CN" for Chinese, "en" for English) and
``<title>``; the Plotly charts, how many have an accessible name (role img with a non-empty
aria-label, or an aria-labelledby that names something) and how many are followed, before the
next chart, by a data table (a ``table`` inside an element of class ``chart-alt``, such as
``<details class="chart-alt">``). Then the totals per language and screen, per rule with example
targets, and the charts.

The server is serve.py started as the README starts it, on a free loopback port, with a room
store of its own in a temporary folder; Debian's Chromium through Playwright.

Run: python bench/a11y_audit.py LABEL [--ref REF] [--viewports ...] [--langs ...] [--pages ...]
(--ref: audit that git ref's app, from a temporary worktree, on this checkout's Python and
packages.)
Writes bench/results/a11y_audit_LABEL.txt (and prints it). Stops by itself.
"""

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter, defaultdict
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support import axe  # noqa: E402
from tests.support.browser import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.support.servers import free_port, readme_serve  # noqa: E402
from ui.shell.registry import PAGES  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RIGHT_LANG = {"zh": "zh-CN", "en": "en"}

# Each Plotly chart: whether it has an accessible name (on the chart's element, its element
# container, or inside it: the plot's div or its SVG), and whether a .chart-alt with a table
# follows it before the next chart does.
CHARTS = """() => {
  const any = '[data-testid=stPlotlyChart], .stPlotlyChart';
  const charts = [...document.querySelectorAll(any)]
    .filter(c => !c.parentElement.closest(any));  // the outermost of a nested pair
  const alts = [...document.querySelectorAll('.chart-alt')];
  const labelled = el => {
    const role = (el.getAttribute('role') || '').split(/\\s+/);
    if (role.includes('img') && (el.getAttribute('aria-label') || '').trim()) return true;
    const ids = (el.getAttribute('aria-labelledby') || '').split(/\\s+/).filter(Boolean);
    return ids.some(id => (document.getElementById(id)?.textContent || '').trim());
  };
  const after = (a, b) => a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING;
  return charts.map((chart, i) => {
    const box = chart.closest('[data-testid=stElementContainer]') || chart;
    const named = [box, chart, ...chart.querySelectorAll('[role], [aria-labelledby]')]
      .some(labelled);
    const next = charts[i + 1];
    const table = alts.some(alt => after(chart, alt) && !chart.contains(alt)
      && (!next || after(alt, next)) && alt.querySelector('table'));
    return {named, table};
  });
}"""


@contextmanager
def checkout(ref: str | None):
    """This checkout, or a worktree of ``ref`` in a temporary folder, removed after."""
    if not ref:
        yield ROOT
        return
    folder = Path(tempfile.mkdtemp(prefix="a11y-audit-ref-")) / "app"
    subprocess.run(["git", "worktree", "add", "--detach", str(folder), ref], cwd=ROOT,
                   check=True, capture_output=True)  # fmt: skip
    try:
        yield folder
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(folder)], cwd=ROOT,
                       check=False)  # fmt: skip


def start_server(store: Path, log, root: Path = ROOT):
    port = free_port()
    process = subprocess.Popen(
        readme_serve(port),
        cwd=root,  # the README's folder: .streamlit/config.toml is read from there
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1", "ROOM_STORE": str(store)},  # its own rooms
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).status == 200:
                return process, url
        except OSError:
            time.sleep(0.3)
    process.terminate()
    raise SystemExit("the app did not start within 60 s")


def visit(tab, url: str, entry, lang: str, viewport: str, lang_set: bool = True) -> dict:
    path = axe.address(entry, lang, viewport)
    started = time.perf_counter()
    error = ""
    try:
        axe.open_drawn(tab, url + path, entry, viewport, lang_set=lang_set)
    except TimeoutError as exc:  # a page that never settles is reported, then audited as it is
        error = str(exc)
    drawn = time.perf_counter() - started
    report = axe.run(tab)
    facts = tab.evaluate("() => ({lang: document.documentElement.lang, title: document.title})")
    return {
        "page": entry.url or "/",
        "lang": lang,
        "viewport": viewport,
        "report": report,
        "html_lang": facts["lang"],
        "title": facts["title"],
        "charts": tab.evaluate(CHARTS),
        "drawn_s": drawn,
        "axe_s": time.perf_counter() - started - drawn,
        "error": error,
    }


def audit(args, root: Path) -> list[dict]:
    from playwright.sync_api import sync_playwright

    pages = [p for p in PAGES if not args.pages or (p.url or "/") in args.pages]
    visits = []
    with tempfile.TemporaryDirectory(prefix="a11y-audit-") as folder:
        log = open(Path(folder) / "server.log", "w")  # noqa: SIM115 (closed below)
        server, url = start_server(Path(folder) / "rooms.sqlite3", log, root)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                for viewport in args.viewports:
                    context = browser.new_context(locale="en-US", **axe.VIEWPORTS[viewport][0])
                    tab = context.new_page()
                    for lang in args.langs:
                        for entry in pages:
                            # code from before issue 64 never sets <html lang>: not waited for
                            found = visit(tab, url, entry, lang, viewport, not args.ref)
                            visits.append(found)
                            print(row(found), flush=True)
                    context.close()
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=20)
            log.close()
    return visits


def rules_text(report, impacts=("critical", "serious")) -> str:
    return ", ".join(f"{rule}×{n}" for rule, n in report.rules(impacts).most_common()) or "-"


def row(v: dict) -> str:
    r = v["report"]
    return (
        f"{v['page']:<21} {v['lang']:<3} {v['viewport']:<19} {r.count('serious'):>7}"
        f" {r.count('critical'):>8} {r.count('moderate'):>8} {r.count('minor'):>5}"
        f"  {v['drawn_s']:5.1f} {v['axe_s']:4.1f}  {rules_text(r)}"
        f"{chr(10) + '    ' + v['error'] if v['error'] else ''}"
    )


HEADER = (
    f"{'page':<21} {'lng':<3} {'viewport':<19} {'serious':>7} {'critical':>8} {'moderate':>8}"
    f" {'minor':>5}  {'drawn':>5} {'axe':>4}  serious/critical rules (nodes)"
)


def summary(visits: list[dict]) -> list[str]:
    out = ["", "== totals: serious / critical nodes per language and screen"]
    cells = defaultdict(lambda: [0, 0])
    for v in visits:
        key = (v["lang"], v["viewport"])
        cells[key][0] += v["report"].count("serious")
        cells[key][1] += v["report"].count("critical")
    for (lang, viewport), (serious, critical) in cells.items():
        out.append(f"  {lang}  {viewport:<19} serious {serious:4d}  critical {critical:3d}")
    total_s = sum(c[0] for c in cells.values())
    total_c = sum(c[1] for c in cells.values())
    out.append(f"  all {len(visits)} visits: serious {total_s}, critical {total_c}")

    out += ["", "== per rule (all impacts): nodes, visits with it, impact, example targets"]
    nodes, where, impact, examples = Counter(), defaultdict(set), {}, defaultdict(list)
    for v in visits:
        for node in v["report"].nodes:
            nodes[node.rule] += 1
            where[node.rule].add((v["page"], v["lang"], v["viewport"]))
            impact[node.rule] = node.impact
            seen = {e[1] for e in examples[node.rule]}
            if len(examples[node.rule]) < 3 and node.target not in seen:
                summary_line = " ".join(node.summary.split())[:150]
                examples[node.rule].append(
                    (v["page"], node.target, " ".join(node.html.split())[:110], summary_line)
                )
    for rule, count in nodes.most_common():
        out.append(f"  {rule:<32} {impact[rule]:<9} {count:5d} nodes on {len(where[rule])} visits")
        for page, target, html, why in examples[rule]:
            out.append(f"      {page}: {target}  {html}")
            out.append(f"          {why}")

    out += ["", "== <html lang> and <title> (first screen visited for each page and language)"]
    first = {}
    for v in visits:
        first.setdefault((v["page"], v["lang"]), v)
    right = 0
    for (page, lang), v in first.items():
        ok = v["html_lang"] == RIGHT_LANG[lang]
        right += ok
        out.append(
            f"  {page:<21} {lang}  lang={v['html_lang']!r:<9} {'right' if ok else 'WRONG':<5}"
            f"  title={v['title']!r}"
        )
    changing = {
        (v["page"], v["lang"])
        for v in visits
        if v["html_lang"] != first[v["page"], v["lang"]]["html_lang"]
    }
    titles = Counter(v["title"] for v in first.values())
    out.append(f"  html lang right on {right} of {len(first)} page × language")
    out.append(
        f"  distinct titles: {len(titles)} over {len(first)} page × language: {dict(titles)}"
    )
    if changing:
        out.append(f"  html lang differs between screens on: {sorted(changing)}")

    out += ["", "== Plotly charts: count, with an accessible name, with a data table after them"]
    by_screen = defaultdict(lambda: [0, 0, 0])
    for v in visits:
        cell = by_screen[(v["lang"], v["viewport"])]
        cell[0] += len(v["charts"])
        cell[1] += sum(c["named"] for c in v["charts"])
        cell[2] += sum(c["table"] for c in v["charts"])
    for (lang, viewport), (count, named, table) in by_screen.items():
        out.append(
            f"  {lang}  {viewport:<19} charts {count:4d}  named {named:4d}  table {table:4d}"
        )
    out.append("  per page (charts / named / table) on each language and screen:")
    for v in visits:
        if v["charts"]:
            named = sum(c["named"] for c in v["charts"])
            table = sum(c["table"] for c in v["charts"])
            out.append(
                f"    {v['page']:<21} {v['lang']}  {v['viewport']:<19}"
                f" {len(v['charts']):3d} / {named:3d} / {table:3d}"
            )
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("label", help="names the result: bench/results/a11y_audit_LABEL.txt")
    parser.add_argument("--ref", help="audit this git ref's app instead of the checkout's")
    parser.add_argument(
        "--viewports", nargs="+", default=list(axe.VIEWPORTS), choices=axe.VIEWPORTS
    )
    parser.add_argument("--langs", nargs="+", default=["zh", "en"], choices=["zh", "en"])
    parser.add_argument(
        "--pages", nargs="*", help="url paths (/ for the walkthrough); all by default"
    )
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the server and the worktree too
    head = subprocess.run(
        ["git", "log", "-1", "--format=%h %s", *([args.ref] if args.ref else [])],
        cwd=ROOT, capture_output=True, text=True,
    ).stdout.strip()[:90]  # fmt: skip
    dirty = not args.ref and subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        cwd=ROOT, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    lines = [
        f"a11y audit '{args.label}': {head}{' (with uncommitted changes)' if dirty else ''}",
        f"axe-core {axe.version()} (axe-playwright-python's copy), rules: {', '.join(axe.TAGS)}",
        "server: streamlit run serve.py (a free loopback port); Debian's Chromium, headless",
        "drawn / axe: seconds to the page drawn in full, and for axe's run and the facts",
        "",
        HEADER,
    ]
    print("\n".join(lines), flush=True)
    started = time.perf_counter()
    with checkout(args.ref) as root:
        visits = audit(args, root)
    lines += [row(v) for v in visits]
    tail = summary(visits)
    tail.append(f"\n{len(visits)} visits in {time.perf_counter() - started:.0f} s")
    print("\n".join(tail))
    lines += tail
    out = ROOT / "bench" / "results" / f"a11y_audit_{args.label}.txt"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"written: {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
