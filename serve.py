"""The server: the app (app.py, every page) with a check of its room store.

    streamlit run serve.py      (the README's first command; deploy/local.sh runs it too)

At start-up the store ($ROOM_STORE, SQLite in data/ by default) is opened and test-written, and
the reason is printed if that fails. /healthz answers 200 "ok" while the store works and 503 with
the reason while it does not (tried again at most every CHECK_S seconds, classroom/store.py):
the check for a balancer or a start script. Streamlit's own /_stcore/health is left as it is,
because the browser asks it before it connects: a page must still load to say why its rooms
cannot work (the room page does, and every other page works without the store).
`streamlit run app.py` runs the same app without /healthz.
"""

from contextlib import asynccontextmanager
from pathlib import Path

import streamlit as st
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from classroom.store import shared_problem as store_problem

HERE = Path(__file__).parent


async def healthz(_request) -> PlainTextResponse:
    problem = store_problem()
    if problem:
        return PlainTextResponse(f"room store: {problem.reason}", status_code=503)
    return PlainTextResponse("ok")


@asynccontextmanager
async def lifespan(_app):
    problem = store_problem()
    if problem:
        print(f"the room store does not work: {problem.reason}", flush=True)
    yield {}


app = st.App(HERE / "app.py", lifespan=lifespan, routes=[Route("/healthz", healthz)])
