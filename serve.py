"""The server: the app (app.py, every page) with a check of its room store.

    streamlit run serve.py      (the README's first command; deploy/local.sh runs it too)

At start-up the store ($ROOM_STORE, SQLite in data/ by default) is opened and test-written, and
the reason is printed if that fails. /healthz answers 200 "ok" while the store works and 503 with
the reason while it does not (tried again at most every CHECK_S seconds, classroom/store.py):
the check for a balancer or a start script. /room/pulse answers a student's browser what its room
shows now (classroom/pulse.py), so that an idle student costs no script run, and /room/teach is
the teacher's link, which sets the teacher's cookie before the page loads (classroom/teach_link.py),
and /model/work counts Gemma's work in this process (passes, the line, the steps kept) for the
benches.
Streamlit's own /_stcore/health is left as it is, because the browser asks it before it connects:
a page must still load to say why its rooms cannot work (the room page does, and every other page
works without the store). `streamlit run app.py` runs the same app without these routes
(a student's page then looks at its room with a fragment every second instead).
"""

from ui.kit import process

process.tune()  # before NumPy's import: OpenBLAS's wait, the collector, thread switches, arenas

import asyncio
import os
from contextlib import asynccontextmanager
from importlib import import_module
from pathlib import Path

import streamlit as st
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse
from starlette.routing import Route

from classroom import pulse, teach_link
from classroom.store import shared_problem as store_problem
from ui.kit.browser import BROWSER_COOKIE
from ui.room.connection import TEACHER_COOKIE

HERE = Path(__file__).parent
PULSE = pulse.Pulse()
os.environ[pulse.ENV] = pulse.PATH  # the pages know that this process answers it


async def healthz(_request) -> PlainTextResponse:
    problem = store_problem()
    if problem:
        return PlainTextResponse(f"room store: {problem.reason}", status_code=503)
    return PlainTextResponse("ok")


async def room_pulse(request) -> JSONResponse:
    """A student's browser asks what its room shows now, held until that changes when it says
    what it shows (classroom/pulse.py); the store is read on worker threads, so a slow store
    never holds up the websockets."""
    query, browser = request.query_params, request.cookies.get(BROWSER_COOKIE, "")
    status, body = await PULSE.held(
        query.get("code", ""), browser, query.get("away") == "1", query.get("seen", "")
    )
    return JSONResponse(body, status_code=status, headers={"Cache-Control": "no-store"})


async def teach(request) -> RedirectResponse:
    """The teacher's link: to the room's first page, the teacher's cookie set on the way when
    the key is the room's (classroom/teach_link.py)."""
    where, cookie = await asyncio.to_thread(
        teach_link.answer, list(request.query_params.multi_items()), PULSE.rooms
    )
    response = RedirectResponse(where, status_code=303, headers={"Cache-Control": "no-store"})
    if cookie:
        response.set_cookie(
            TEACHER_COOKIE, cookie, max_age=teach_link.COOKIE_AGE_S, path="/", samesite="lax"
        )
    return response


async def model_work(_request) -> JSONResponse:
    """Counts of Gemma's work in this process (no text of anyone's): the passes that have had
    their turn, those running and waiting, the longest line, the written steps kept and their
    bound, the jobs read ahead (and whether one waits or runs), and the model's load. For the
    class benches (bench/classroom.py)."""
    turns = import_module("ui.work.model_turns").TURNS
    decoding, load = import_module("ui.work.decoding"), import_module("ui.work.model_load")
    inside = import_module("ui.work.reading_passes")
    built = (decoding._step, decoding._prompt_for_writing, *inside.MODEL_WORK)
    first = load.load_of(load.first())  # the model loaded at the server's start
    body = {
        "passes": sum(cache.builds for cache in built),
        "turns": turns.started,
        "running": turns.running(),
        "waiting": turns.waiting(),
        "longest_line": turns.most_waiting,
        "batches": sum(batcher.batches for batcher in decoding.ONE_TOKEN.values()),
        "batched_tokens": sum(batcher.items for batcher in decoding.ONE_TOKEN.values()),
        "read_ahead": decoding.AHEAD.done,
        "distributions": decoding._distribution.builds,
        "candidates": decoding._candidates.builds,
        "ahead_busy": not decoding.AHEAD.idle(0),
        "steps_kept": decoding._step.cache_len(),
        "steps_bound": decoding.KEEP_STEPS,
        "loaded": first.seconds is not None and first.error is None,
        "load_s": first.seconds,
    }
    return JSONResponse(body, headers={"Cache-Control": "no-store"})


@asynccontextmanager
async def lifespan(_app):
    # every page's imports, lazy ones included (preload.py), before the first session: here the
    # runtime exists, so the pages' caches are made in its storage
    await asyncio.to_thread(import_module, "preload")
    # the first model (Gemma) in the background: its pages wait for it
    import_module("ui.work.model_load").start_first()
    problem = store_problem()
    if problem:
        print(f"the room store does not work: {problem.reason}", flush=True)
    yield {}


app = st.App(
    HERE / "app.py",
    lifespan=lifespan,
    routes=[
        Route("/healthz", healthz),
        Route(pulse.PATH, room_pulse),
        Route(teach_link.PATH, teach),
        Route("/model/work", model_work),
    ],
)
