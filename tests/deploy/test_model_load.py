"""Gemma loads in the background from the server's start (ui/kit/model_load.py): a learner who
opens /generate before it is ready sees how long it has been loading, not a frozen page, with a
fragment that looks again every half second, and the page once it is ready. (In a browser that
fragment reruns the page by itself: seen in Playwright, 7.8 s after the server answered.)"""

import asyncio
import time
from contextlib import AsyncExitStack

from tests.support.servers import serving
from tests.support.session import connect

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


def test_a_learner_before_the_model_is_ready_sees_it_loading_then_the_page():
    with serving(script="serve.py") as (port, _server):
        first, later, waited = asyncio.run(_arrive_early(port))
    assert any(text.startswith("Loading Gemma 3 270M, once for this server") for text in first)
    assert not any("Next token" in text for text in first)
    assert any("Next token" in text for text in later) and waited > 0
