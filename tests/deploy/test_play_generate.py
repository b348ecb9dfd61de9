"""Play on /generate (serve.py, over Streamlit's websocket): Play and Pause rerun the player's
fragment alone, not the page (its pieces table is not sent again), and the timer is the one drawn
inside that fragment (ui/kit/ticker.py), not the fragment's own: each tick a browser sends writes
one token. In Chromium the same timer steps the loop page's player once a second and stops at its
end (tests/e2e/test_pages_e2e.py)."""

import asyncio
from contextlib import AsyncExitStack

from tests.support.model_work import steps_shown, until_loaded
from tests.support.servers import serving
from tests.support.session import connect
from ui.kit.i18n import t
from ui.kit.player import INTERVAL_S
from ui.kit.ticker import tick_key

TICKER = tick_key("gen_written")


async def _play(port: int) -> dict:
    base = f"http://127.0.0.1:{port}"
    await until_loaded(base)
    seen = {}
    async with AsyncExitStack() as stack:
        learner = await connect(base, "generate", "lang=en&gen_mode=sample&gen_seed=4", None, stack)
        pieces = t("generate.pieces_title", "en")
        await learner.run(learner.press("gen_written_button"))
        seen["play"] = (pieces in learner.texts, TICKER in learner.widgets, dict(learner.fragments))
        seen["pause_label"] = t("player.pause", "en") in learner.texts
        steps = []
        for tick in range(2):
            await asyncio.sleep(INTERVAL_S)  # what the timer waits in the browser
            await learner.run(learner.trigger(TICKER, "tick", tick))
            steps.append((steps_shown(learner.texts), pieces in learner.texts))
        seen["steps"] = steps
        await learner.run(learner.press("gen_written_button"))  # Pause
        seen["paused"] = (pieces in learner.texts, t("player.play", "en") in learner.texts)
    return seen


def test_play_and_pause_rerun_the_player_alone_and_its_timer_writes_a_token_a_tick():
    with serving(script="serve.py") as (port, _server):
        seen = asyncio.run(_play(port))
    in_page, ticker, timers = seen["play"]
    assert not in_page and ticker and timers == {}  # the fragment alone; no fragment timer
    assert seen["pause_label"]
    assert seen["steps"] == [(1, False), (2, False)]
    assert seen["paused"] == (False, True)
