"""Gemma loads in the background from the server's start (ui/work/model_load.py): a learner who
opens /generate before it is ready (or starts it, on `streamlit run app.py`) sees how long it
has been loading, not a frozen page, with a fragment that looks again every half second, and
the page once it is ready. (In a browser that
fragment reruns the page by itself: seen in Playwright, 7.8 s after the server answered.)"""

import asyncio
import time
from contextlib import AsyncExitStack

import numpy as np
import pytest

from tests.support.model_work import steps_shown, until_loaded, when_settled
from tests.support.servers import serving
from tests.support.session import connect
from ui.kit.i18n import t

READY_S = 120  # the load on a busy machine, with margin


async def _arrive_early(port: int) -> tuple[list[str], list[str], float]:
    async with AsyncExitStack() as stack:
        learner = await connect(f"http://127.0.0.1:{port}", "generate", "lang=en", None, stack)
        first = list(learner.texts)
        started = time.monotonic()
        assert list(learner.fragments.values()) == [0.5], "no fragment is waiting for the model"
        while not any("Next token" in text for text in learner.texts):
            assert time.monotonic() - started < READY_S, "the page never came"
            await asyncio.sleep(1.0)
            await learner.run()
        return first, learner.texts, time.monotonic() - started


@pytest.mark.parametrize("script", ["serve.py", "app.py"])
def test_a_learner_before_the_model_is_ready_sees_it_loading_then_the_page(script):
    """serve.py starts the load with the server; on app.py this first visit starts it."""
    with serving(script=script) as (port, _server):
        first, later, waited = asyncio.run(_arrive_early(port))
    assert any(text.startswith("Loading Gemma 3 270M, once for this server") for text in first)
    assert not any("Next token" in text for text in first)
    assert any("Next token" in text for text in later) and waited > 0


async def _class_writes(port: int) -> tuple[dict, dict, dict, dict, list[int], list[bool]]:
    """Three learners sampling with seeds of their own, and two with the same seed, on a real
    server once the model has loaded: what /model/work counted when they had opened the page
    (and its reading ahead was done), before and after their presses (each press's reading
    ahead done), the tokens each shows after it, and whether the press redrew the whole page."""
    base = f"http://127.0.0.1:{port}"
    loaded = await until_loaded(base, READY_S)
    async with AsyncExitStack() as stack:
        queries = [f"lang=en&gen_mode=sample&gen_seed={seed}" for seed in (1, 2, 3, 3)]
        learners = [await connect(base, "generate", q, None, stack) for q in queries]
        title = t("generate.pieces_title", "en")
        assert all(title in learner.texts for learner in learners)  # a whole page: it is there
        before = await when_settled(base)
        for learner in learners:  # Next, each in turn
            await learner.run(learner.press("gen_next"))
        after = await when_settled(base)
        shown = [steps_shown(learner.texts) for learner in learners]
        whole = [title in learner.texts for learner in learners]
    return loaded, before, after, shown, whole


def _drawn(gemma, seed: int, count: int) -> tuple:
    """The first ``count`` tokens seed ``seed`` samples at T = 1 after the English example: the
    test's own softmax and draws, one generator per seed (as the page's rules say)."""
    rng, trace = (
        np.random.default_rng(seed),
        gemma.forward(gemma.encode(t("generate.example", "en"))),
    )
    tokens = []
    for _ in range(count):
        logits = trace.logits[-1].astype(np.float64)
        p = np.exp(logits - logits.max())
        tokens.append(int(rng.choice(p.size, p=p / p.sum())))
        trace = gemma.forward([tokens[-1]], trace.cache)
    return tuple(tokens)


def test_the_server_counts_its_passes_one_per_distinct_step(gemma):
    """serve.py's /model/work: the load's seconds, and one pass per distinct step (the two
    learners with seed 3 share theirs); counts only, no text of anyone's. Each step was read
    ahead: the pages' first tokens while they opened, so that the presses ran no pass, and the
    tokens after them once pressed. Next reruns the player's fragment, not the page: its pieces
    table is not sent again."""
    with serving(script="serve.py") as (port, _server):
        loaded, before, after, shown, whole = asyncio.run(_class_writes(port))
    assert loaded["loaded"] and 0 < loaded["load_s"] < READY_S
    assert shown == [1, 1, 1, 1] and whole == [False] * 4
    firsts = {_drawn(gemma, seed, 1) for seed in (1, 2, 3)}
    seconds = {_drawn(gemma, seed, 2) for seed in (1, 2, 3)}
    assert before["passes"] - loaded["passes"] == 1 + len(firsts)  # the prompt's, then those
    assert after["passes"] - before["passes"] == len(seconds)  # the presses' own: read ahead
    assert after["read_ahead"] - before["read_ahead"] == 4  # one a page, for its next token
    assert after["steps_kept"] - before["steps_kept"] == after["passes"] - before["passes"]
    assert after["running"] == 0 and after["waiting"] == 0 and after["steps_bound"] == 256
    assert set(after) == {
        "passes", "turns", "running", "waiting", "longest_line", "batches", "batched_tokens",
        "steps_kept", "steps_bound", "loaded", "load_s", "read_ahead", "ahead_busy",
        "distributions", "candidates",
    }  # fmt: skip
