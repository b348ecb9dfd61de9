"""The first minute of a class, as the README starts the server: this checkout beside another
version of the app (``--against``, a git ref: by default the code before issue 54), alternated,
each scenario on a fresh server, loopback only.

Scenarios (issue 54's targets):

- pages-serve / pages-app: N learners spread over every page (the model's among them) open
  ``streamlit run serve.py`` / ``streamlit run app.py`` the moment /_stcore/health first answers.
  Failed first runs (an exception, or the app's apology) 0; every first render <= 5 s (the
  maximum over all learners, from the class's arrival); the pages that opened on the model's
  progress bar rerun its fragment at the browser's pace until they draw in full, <= 12 s from the
  arrival; then everyone reruns at once, p95 < 2 s; the server's peak memory, the high-water mark
  (VmHWM) of it and its children, <= 1.6 GB.
- walkthrough-app: N learners on the teacher's walkthrough link, on app.py: VmHWM <= 400 MB.
- storm-serve (issue 67): pages-serve with a Measure storm: as soon as the class has its first
  renders, STORM learners who are not on a model page go to the cost page and press Measure at
  the same moment, while the model's pages draw and, a second later, everyone else reruns at once
  (the walkthrough's among them): model pages drawn <= 12 s from the arrival, the others' reruns
  p95 < 2 s, every press answered (its exponent said, or the page saying the server was busy),
  VmHWM <= 1.6 GB.
- own-app (issue 67): N walkthrough learners on app.py, each with a sentence of their own (so no
  cache is shared between them), then all rerun at once: p95 < 2 s, VmHWM <= 400 MB.
- replicas: 2N learners through deploy/local.sh's three replicas behind nginx (half on the
  walkthrough, half over every page): simultaneous reruns p95 < 2 s.

Both versions are started by the same command, with the same flags: the README's, on a free
loopback port. The other version runs from a git worktree in a temporary folder, on this
checkout's Python and packages.

Run: python bench/first_minute.py [scenario ...] [--against REF] [--rounds R] [--sessions N]
    [--capacity 60,90,120,...] [--cold]
``--cold``: this checkout's servers start with no float32 file of the models' weights (the first
start after an install); without it they find the files an earlier start left, as a user's do.
``--capacity``: each scenario at each class size, this checkout beside the other version, and the
largest size at which each holds its reruns at p95 < 2 s with no failure. Stops by itself.
"""

import argparse
import asyncio
import os
import random
import subprocess
import sys
import tempfile
import time
from contextlib import AsyncExitStack, contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.classroom import (  # noqa: E402
    LINK,
    LOADING,
    PAGES,
    PeakMemory,
    percentile,
    shown_growth,
    verdict,
)
from core.pretrained import float_cache  # noqa: E402
from tests.support.servers import deployed, serving  # noqa: E402
from tests.support.session import connect  # noqa: E402
from ui.kit.i18n import LANGS, t  # noqa: E402
from ui.shell.registry import PAGES as REGISTRY  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BEFORE = "1783411"  # the last commit before issue 54's changes
SCENARIOS = ("pages-serve", "pages-app", "walkthrough-app", "replicas", "storm-serve", "own-app")
STORM = 24  # learners pressing Measure at once (the storm)
WORDS = ("the cat dog sat ran on under a mat rug big small red blue 我 你 喜欢 学习 语言 电影"
         " 很 好看 今天 天气").split()  # fmt: skip


def own_sentence(i: int) -> str:
    """Learner i's sentence: five to seven words of WORDS, no two learners' alike."""
    rng = random.Random(i)
    words = rng.sample(WORDS, rng.randint(5, 7))
    return "+".join(words[:-1] + [f"{words[-1]}{i}"])  # (the learner's number: never alike)


APOLOGY = {t("shell.unexpected_error", lang) for lang in LANGS}
MODEL_PAGES = {page.url for page in REGISTRY if page.model}


def failures(learner) -> list[str]:
    shown = [text for text in learner.texts if text in APOLOGY or "Traceback" in text]
    return learner.exceptions + shown


async def drawn_in_full(learner, opened_at: float) -> float:
    """A page on the model's progress bar: its fragment reruns at the browser's pace until the
    page is drawn (the bar gone); seconds from the class's arrival."""
    while learner.fragments and any(text.startswith(LOADING) for text in learner.texts):
        fragment, interval = next(iter(learner.fragments.items()))
        await asyncio.sleep(interval)
        await learner.run(fragment=fragment, timeout=300)
    return time.perf_counter() - opened_at


async def a_class(base: str, pages: list[str], query, storm: int = 0) -> dict:
    """``query``: every learner's, or a function of the learner's number; ``storm``: learners
    (not on a model page) who press Measure on the cost page once the class has its first
    renders, while the model's pages draw and the others rerun (see storm-serve)."""
    async with AsyncExitStack() as stack:
        opened_at = time.perf_counter()

        async def one(i, page):
            asked = query(i) if callable(query) else query
            lang = asked or f"lang={'zh' if i % 2 else 'en'}"
            try:
                learner = await connect(base, page, lang, None, stack)
            except TimeoutError:  # as a browser does after its 15 s: connect again, and the
                # learner counts as failed (they saw "connecting" where a page should be)
                learner = await connect(base, page, lang, None, stack)
                learner.exceptions.append("the websocket took over 15 s to open; connected again")
            return learner, time.perf_counter() - opened_at

        opened = await asyncio.gather(*(one(i, page) for i, page in enumerate(pages)))
        learners = [learner for learner, _ in opened]
        first = [seconds for _, seconds in opened]
        failed = sum(bool(failures(learner)) for learner in learners)
        model = [
            learner for learner, page in zip(learners, pages, strict=True) if page in MODEL_PAGES
        ]
        others = [learner for learner in learners if learner not in model]
        storm = min(storm, len(others) // 2)  # (a small class: half of those off the model)
        pressers, others = others[:storm], others[storm:]

        async def press(learner):
            learner.page, learner.query = "cost", "lang=en"  # (shown_growth reads English)
            await learner.run(timeout=300)
            pressed_at = time.perf_counter()
            await learner.run(learner.press("co_measure"), timeout=300)
            return time.perf_counter() - pressed_at, *shown_growth(learner.texts)

        async def rerun_soon(learner):
            await asyncio.sleep(1.0 if storm else 0.0)  # (after the storm's presses)
            return await learner.run(timeout=300)

        if storm:  # everything at once: the storm, the model's pages, the others' reruns
            full, pressed, rerun = await asyncio.gather(
                asyncio.gather(*(drawn_in_full(learner, opened_at) for learner in model)),
                asyncio.gather(*(press(learner) for learner in pressers)),
                asyncio.gather(*(rerun_soon(learner) for learner in others)),
            )
        else:
            full = await asyncio.gather(*(drawn_in_full(learner, opened_at) for learner in model))
            pressed = []
            rerun = await asyncio.gather(*(learner.run(timeout=300) for learner in learners))
        failed += sum(bool(failures(learner)) for learner in learners)
        off_model = [s for s, page in zip(first, pages, strict=True) if page not in MODEL_PAGES]
        return {"first": first, "first_off_model": off_model, "full": full, "rerun": rerun,
                "failed": failed, "pressed": pressed}  # fmt: skip


def on_one_server(root: Path, script: str, pages: list[str], query="", storm: int = 0) -> dict:
    with serving(script=script, root=root) as (port, server):
        peak = PeakMemory([server.pid])
        try:
            result = asyncio.run(
                asyncio.wait_for(a_class(f"http://127.0.0.1:{port}", pages, query, storm), 600)
            )
        finally:
            result_peak, own = peak.stop()
        crashed = server.poll() is not None
    return {**result, "peak": result_peak, "own": own, "pss": peak.pss_peak, "crashed": crashed}


def through_replicas(root: Path, sessions: int) -> dict:
    pages = [PAGES[i % len(PAGES)] if i % 2 else "" for i in range(sessions)]  # half on /
    python = {"PYTHON": sys.executable}  # this checkout's packages (another has no .venv)
    with deployed(3, env=python, root=root) as (base, pids, _redis):
        peak = PeakMemory(list(pids.values()))
        try:
            result = asyncio.run(asyncio.wait_for(a_class(base, pages, "lang=en"), 600))
        finally:
            result_peak, own = peak.stop()
    return {**result, "peak": result_peak, "own": own, "pss": peak.pss_peak, "crashed": False}


@contextmanager
def checkout(ref: str):
    """A worktree of ``ref`` in a temporary folder, removed after."""
    folder = Path(tempfile.mkdtemp(prefix="first-minute-"))
    subprocess.run(
        ["git", "worktree", "add", "--detach", str(folder / "app"), ref],
        cwd=ROOT, check=True, capture_output=True,
    )  # fmt: skip
    try:
        yield folder / "app"
    finally:
        subprocess.run(
            ["git", "worktree", "remove", "--force", str(folder / "app")], cwd=ROOT, check=False
        )


@contextmanager
def as_installed(root: Path):
    """The other version's server as its own requirements install it: where they lack a package
    this checkout's .venv has (uvloop, issue 67), a stub that fails to import shadows it."""
    wanted = (root / "requirements.txt").read_text()
    stubs = [name for name in ("uvloop",) if name not in wanted]
    if not stubs:
        yield
        return
    folder = Path(tempfile.mkdtemp(prefix="not-installed-"))
    for name in stubs:
        (folder / name).mkdir()
        (folder / name / "__init__.py").write_text(f"raise ModuleNotFoundError({name!r})\n")
    saved = os.environ.get("PYTHONPATH")
    with environ("PYTHONPATH", str(folder) + (os.pathsep + saved if saved else "")):
        yield


@contextmanager
def environ(name: str, value: str):
    """``name`` set to ``value`` in this process's environment (the servers it starts inherit
    it) for the block, then as it was."""
    saved = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(name)
        else:
            os.environ[name] = saved


COLD = {"on": False}  # --cold: each server starts with no float32 file of the models' weights


@contextmanager
def floats_as_asked():
    """The models' float32 files (core/pretrained/float_cache.py) where a user's server finds
    them (warm: an earlier start left them), or, with --cold, a folder of this run's own, empty:
    the first start after an install, which dequantises and writes them."""
    if not COLD["on"]:
        yield
        return
    with tempfile.TemporaryDirectory(prefix="floats-") as folder, environ(float_cache.ENV, folder):
        yield


def run(scenario: str, root: Path, sessions: int) -> dict:
    with as_installed(root), floats_as_asked():
        return _run(scenario, root, sessions)


def _run(scenario: str, root: Path, sessions: int) -> dict:
    spread = [PAGES[i % len(PAGES)] for i in range(sessions)]
    if scenario == "pages-serve":
        return on_one_server(root, "serve.py", spread)
    if scenario == "pages-app":
        return on_one_server(root, "app.py", spread)
    if scenario == "walkthrough-app":
        return on_one_server(root, "app.py", [""] * sessions, LINK)
    if scenario == "storm-serve":
        return on_one_server(root, "serve.py", spread, storm=STORM)
    if scenario == "own-app":
        own = LINK.replace("这+部+电影+很+好看", "{}")
        return on_one_server(root, "app.py", [""] * sessions, lambda i: own.format(own_sentence(i)))
    return through_replicas(root, 2 * sessions)


def line(name: str, result: dict) -> str:
    first, rerun, full = result["first"], result["rerun"], result["full"]
    drawn = f"{max(full):5.2f} s" if full else "   -   "
    off = result.get("first_off_model") or []  # (the model's pages: their first run may draw it)
    off_model = f" ({max(off):5.2f} off the model's pages)" if 0 < len(off) < len(first) else ""
    return (
        f"  {name:<8} failed {result['failed']:2d} of {len(first)}"
        f" | first render max {max(first):5.2f} s{off_model}"
        f" | model pages drawn {drawn}"
        f" | reruns p95 {percentile(rerun, 0.95):5.2f} s"
        f" | peak (VmHWM) {result['peak']:6.0f} MB ({result['own']:.0f} the server's;"
        f" Pss summed {result.get('pss', 0):.0f} at most)"
        f"{' | CRASHED' if result['crashed'] else ''}"
        + (pressed_line(result["pressed"]) if result.get("pressed") else "")
    )


def pressed_line(pressed: list[tuple]) -> str:
    exponents = sorted({round(e, 2) for _, e, _ in pressed if e == e})
    busy = sum(b for _, _, b in pressed)
    return (
        f"\n           {len(pressed)} pressed Measure: answered in"
        f" {max(s for s, _, _ in pressed):5.1f} s (max), exponents shown {exponents or '-'},"
        f" {busy} told the server was busy"
    )


def targets(scenario: str, result: dict) -> str:
    first, rerun, full = result["first"], result["rerun"], result["full"]
    checks = [f"0 failed {verdict(result['failed'] == 0 and not result['crashed'])}"]
    if scenario.startswith(("pages", "storm")):
        checks += [
            f"first renders <= 5 s {verdict(max(first) <= 5)}",
            f"model pages <= 12 s {verdict(bool(full) and max(full) <= 12)}",
            f"peak <= 1600 MB {verdict(result['peak'] <= 1600)}",
        ]
    if scenario in ("walkthrough-app", "own-app"):
        checks.append(f"peak <= 400 MB {verdict(result['peak'] <= 400)}")
    if scenario == "storm-serve":
        shown = all(e == e and 1.4 <= e <= 2.4 or busy for _, e, busy in result["pressed"])
        checks.append(f"every press an exponent in [1.4, 2.4] or 'busy' {verdict(shown)}")
    checks.append(f"reruns p95 < 2 s {verdict(percentile(rerun, 0.95) < 2)}")
    return "  targets (this checkout): " + ", ".join(checks)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("scenarios", nargs="*", default=list(SCENARIOS))
    parser.add_argument("--against", default=BEFORE, help="the other version: a git ref")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--sessions", type=int, default=60)
    parser.add_argument("--capacity", default="", help="class sizes, e.g. 60,90,120,150,180")
    parser.add_argument("--cold", action="store_true", help="no float32 file of the weights yet")
    args = parser.parse_args()
    COLD["on"] = args.cold
    sizes = [int(n) for n in args.capacity.split(",") if n]
    head = subprocess.run(
        ["git", "log", "-1", "--format=%h %s"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()[:70]
    print(f"this checkout: {head}{' (with uncommitted changes)' if dirty() else ''}")
    print(f"against: {args.against}; {os.cpu_count()} cores; {args.sessions} learners a class")
    where = float_cache.root()
    kept = sorted(p.name for p in where.iterdir()) if where and where.is_dir() else []
    cold = "none (--cold: each server of this checkout dequantises and writes them)"
    print(f"the models' float32 files: {cold if args.cold else f'{where}: {kept or None}'}")
    with checkout(args.against) as other:
        if sizes:
            for scenario in args.scenarios:
                capacity(scenario, other, sizes)
            return
        for scenario in args.scenarios:
            print(f"\n== {scenario}")
            for round_ in range(args.rounds):  # alternated: the other version first, then this
                before = run(scenario, other, args.sessions)
                print(line(f"before/{round_ + 1}", before), flush=True)
                now = run(scenario, ROOT, args.sessions)
                print(line(f"now/{round_ + 1}", now), flush=True)
            print(targets(scenario, now), flush=True)


def holds(result: dict) -> bool:
    return not result["failed"] and not result["crashed"] and percentile(result["rerun"], 0.95) < 2


def capacity(scenario: str, other: Path, sizes: list[int]) -> None:
    """``scenario`` at each class size, the other version then this checkout; the largest size
    each holds (reruns p95 < 2 s, nothing failed), and the sizes above that still held."""
    print(f"\n== capacity, {scenario}: class sizes {sizes}")
    held = {"before": [], "now": []}
    for size in sizes:
        for who, root in (("before", other), ("now", ROOT)):
            result = run(scenario, root, size)
            print(line(f"{who}/{size}", result), flush=True)
            if holds(result):
                held[who].append(size)
    for who, sizes_held in held.items():
        largest = max(
            (n for n in sizes if all(m in sizes_held for m in sizes if m <= n)), default=0
        )
        print(f"  capacity {who}: {largest or 'under ' + str(sizes[0])} learners"
              f" (held at {sizes_held or 'none'})", flush=True)  # fmt: skip


def dirty() -> bool:
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    return bool(status.stdout.strip())


if __name__ == "__main__":
    main()
