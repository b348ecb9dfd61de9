"""The server: the app (app.py, every page) with a check of its room store at start-up.

    streamlit run serve.py      (the README's first command; deploy/local.sh runs it too)

At start-up the store ($ROOM_STORE, SQLite in data/ by default) is opened and test-written.
/_stcore/health answers 503 with the reason while that test fails (tried again at most every
CHECK_S seconds, classroom/store.py), so a balancer or a start script sees a server whose rooms
cannot work; the room page says why to whoever opens it. `streamlit run app.py` runs the same
app without the check.
"""

from contextlib import asynccontextmanager
from pathlib import Path

import streamlit as st
from starlette.middleware import Middleware
from starlette.responses import PlainTextResponse

from classroom.store import shared_problem as store_problem

HERE = Path(__file__).parent


class StoreHealth:
    """ASGI middleware: /_stcore/health fails while the room store does."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["path"].endswith("/_stcore/health"):
            problem = store_problem()
            if problem:
                response = PlainTextResponse(f"room store: {problem.reason}", status_code=503)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


@asynccontextmanager
async def lifespan(_app):
    problem = store_problem()
    if problem:
        print(f"the room store does not work: {problem.reason}", flush=True)
    yield {}


app = st.App(HERE / "app.py", lifespan=lifespan, middleware=[Middleware(StoreHealth)])
