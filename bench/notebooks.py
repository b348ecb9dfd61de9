"""Take the lesson home (issue 57): each page's notebook made in Chinese, executed top to bottom
in a real kernel (nbclient, ipykernel), timed, and its saved arrays compared with the page's own
trace (the largest difference printed); then the Chinese walkthrough and /generate notebooks as
Jupyter's own HTML export renders them (nbconvert, bench-only: pip install nbconvert==7.17.2),
photographed in headless Chromium.

    python bench/notebooks.py [--shots DIR]
"""

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["PYTHONPATH"] = str(ROOT)  # the /generate notebook's kernel finds the app's core/

import nbclient  # noqa: E402
import nbformat  # noqa: E402
import numpy as np  # noqa: E402

from core.lessons import hand_example  # noqa: E402
from core.lessons.mistakes import mask_after_softmax  # noqa: E402
from core.trace import FIELDS  # noqa: E402
from scheduling.training import Settings as TrainSettings  # noqa: E402
from scheduling.training import child_lines  # noqa: E402
from ui.kit.settings import Settings  # noqa: E402
from ui.notebooks import generate, hand_check, masks, train, walkthrough  # noqa: E402
from ui.notebooks.cells import SAVED  # noqa: E402
from ui.views.hand_check.text import hand_trace  # noqa: E402
from ui.work.traces import TraceKey, batch_trace, sentence_trace  # noqa: E402


def execute(made: bytes, folder: Path):
    book = nbformat.reads(made.decode("utf-8"), as_version=4)
    start = time.perf_counter()
    nbclient.NotebookClient(book, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(folder)}}).execute()  # fmt: skip
    return book, time.perf_counter() - start, np.load(folder / SAVED)


def largest(saved, expected: dict) -> float:
    """The largest |difference| over every array (a −∞ in both counts as equal)."""
    worst = 0.0
    for key, value in expected.items():
        a, b = np.asarray(saved[key], float), np.asarray(value, float)
        with np.errstate(invalid="ignore"):
            diff = np.where(a == b, 0.0, np.abs(a - b))
        worst = max(worst, float(diff.max()))  # (a NaN, where one side is −∞, stays NaN)
    return worst


def kinds():
    """(kind, the notebook's file, what the page's own code holds for its saved arrays)"""
    settings = Settings(
        lang="zh", sentence="这 部 电影 很 好看", d_model=8, n_heads=2, mask="causal"
    )
    data = sentence_trace(TraceKey.of(settings))
    yield ("walkthrough", walkthrough.build(data, settings, "zh"),
           {n: getattr(data.trace, n) for n in FIELDS})  # fmt: skip
    batch = batch_trace(("我 爱 你", "今天 天气 很 好 啊", ""), TraceKey.of(settings), "both")
    expected = {n: getattr(batch.trace, n) for n in FIELDS}
    expected["wrong"] = mask_after_softmax(batch.trace.S_scaled[:, 0], batch.allowed)
    yield "masks", masks.build(batch, settings, "both", "zh"), expected
    matrices = hand_example.example(4)
    trace = hand_trace(matrices, False)
    yield ("hand check", hand_check.build(matrices, trace, ("我", "爱", "你"), False, "zh"),
           {n: getattr(trace, n) for n in FIELDS})  # fmt: skip
    run = TrainSettings("repeat", d_model=32, n_heads=2, n_layers=2, steps=200, seed=0)
    lines = [json.loads(line) for line in child_lines(run)]
    yield "train", train.build(run, "zh"), {"loss": [line["loss"] for line in lines]}
    from ui.work.decoding import Rules, candidates_at, decoder, written

    model, rules = decoder("gemma3-270m"), Rules(0.8, 40, 0.95, True, 7)
    ids = tuple(model.encode("太阳系有八大"))
    page = written(model, ids, rules, 3)
    top = candidates_at(model, (*ids, *page.tokens), len(ids), rules)
    yield ("generate", generate.build(model.name, "太阳系有八大", ids, rules, 3, "zh"),
           {"written": page.tokens, "top_ids": top.ids, "top_q": top.q})  # fmt: skip


def photograph(book, name: str, shots: Path) -> Path:
    from nbconvert import HTMLExporter
    from playwright.sync_api import sync_playwright

    html, _ = HTMLExporter().from_notebook_node(book)
    page_file = shots / f"{name}.html"
    page_file.write_text(html, encoding="utf-8")
    shot = shots / f"{name}.png"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                    args=["--no-sandbox", "--disable-gpu"])  # fmt: skip
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.route("http*://**", lambda route: route.abort())  # offline, as a learner may be
        page.goto(page_file.as_uri())
        page.screenshot(path=str(shot), full_page=True)
        browser.close()
    return shot


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shots", default=tempfile.mkdtemp(prefix="notebooks-"))
    shots = Path(parser.parse_args().shots)
    shots.mkdir(parents=True, exist_ok=True)
    print(f"{'kind':12s} {'cells':>5s} {'run (s)':>8s} {'largest difference from the page':>34s}")
    for kind, made, expected in kinds():
        with tempfile.TemporaryDirectory() as folder:
            book, seconds, saved = execute(made, Path(folder))
            diff = largest(saved, expected)
        print(f"{kind:12s} {len(book.cells):5d} {seconds:8.2f} {diff:34.3g}")
        if kind in ("walkthrough", "generate"):
            print("  nbconvert HTML:", photograph(book, f"notebook-zh-{kind}", shots))


if __name__ == "__main__":
    main()
