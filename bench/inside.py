"""The inside page's speed, side by side in one run: one forward pass with residuals of a 64-piece
prompt against the page's whole first run on it (every section), a rerun that changes only the
view (sort, threshold, a head's map) and one that switches a head off, each with the model calls
it made counted.

Targets (issue 41): the whole page under 1.5 s from one forward pass with residuals; a view-only
rerun under 0.3 s with no model call; an ablation rerun at most one forward pass per sequence.

    .venv/bin/python bench/inside.py
"""

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import core  # noqa: E402
from core.lessons import model_reading  # noqa: E402
from tests.support.app import run_app  # noqa: E402

PROMPT = "The quick brown fox jumps over the lazy dog, and then it runs into the forest to hide. "


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def main() -> None:
    model = core.load_decoder()
    ids = tuple(model.encode(PROMPT * 4)[:64])
    calls = []
    forward = model.forward

    def counted(*args, **kwargs):
        calls.append(len(args[0]))
        return forward(*args, **kwargs)

    model.forward = counted  # the page's shared model is this one (core.load_decoder is cached)
    alone = []
    for _ in range(3):
        start = time.perf_counter()
        run = forward(ids, residuals=True)
        model_reading.logit_lens(model, run.H)
        alone.append(time.perf_counter() - start)
    print(f"prompt: {len(ids)} pieces")
    print(f"one forward pass with residuals + the lens (best of 3): {min(alone):.2f} s")

    repeat = model_reading.repeated_tokens(model, 0)
    forward(repeat)  # warm: the repeat's pass is shared by every prompt's page
    at = run_app("inside", lang="en")  # the default prompt, so the repeat pass is cached
    pages = []
    for k in range(3):  # three new prompts of 64 pieces (the last word changed), each once
        calls.clear()
        at.text_area(key="in_prompt").set_value(model.decode(list(ids[1:-1]) + [ids[-1] + k + 1]))
        start = time.perf_counter()
        at.run(timeout=120)
        pages.append(time.perf_counter() - start)
        assert not at.exception, at.exception
    first = min(pages)
    print(
        f"the whole page on a new {len(ids)}-piece prompt (3 prompts): best {first:.2f} s, median"
        f" {statistics.median(pages):.2f} s, {first / min(alone):.2f}x one pass; model calls"
        f" {calls} -> under 1.5 s {verdict(first < 1.5)}"
    )

    views = []
    calls.clear()
    for sort, least in (("previous", 0.0), ("sink", 0.2), ("induction", 0.1), ("local", 0.0)):
        at.selectbox(key="in_sort").set_value(sort)
        at.slider(key="in_least").set_value(least)
        start = time.perf_counter()
        at.run(timeout=60)
        views.append(time.perf_counter() - start)
    print(
        f"view-only reruns (sort, threshold): median {statistics.median(views):.3f} s, max"
        f" {max(views):.3f} s; model calls {len(calls)}"
        f" -> under 0.3 s with no call {verdict(max(views) < 0.3 and not calls)}"
    )

    calls.clear()
    at.multiselect(key="in_off").set_value(["6.2"])
    start = time.perf_counter()
    at.run(timeout=120)
    ablation = time.perf_counter() - start
    print(
        f"switching L6 H2 off: {ablation:.2f} s; model calls {len(calls)} (pieces {calls})"
        f" -> one pass per sequence {verdict(len(calls) <= 2)}"
    )


if __name__ == "__main__":
    main()
