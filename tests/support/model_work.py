"""What a server's Gemma did, as serve.py's /model/work counts it, and how many tokens a
/generate page showed written: for the class benches and the deploy tests."""

import asyncio
import json
import re
import time

from tests.support.http import Connection

STEP = re.compile(r"^Step (\d+) chose")  # /generate's caption of the newest token, in English


async def work(base: str) -> dict:
    """serve.py's counts of Gemma's work; {} from code that has no /model/work (the code
    before issue 42, run side by side: nothing counted, the model loaded on a first visit)."""
    connection = Connection(base)
    status, body = await connection.get("/model/work")
    await connection.close()
    return json.loads(body) if status == 200 and body.startswith(b"{") else {}  # (or the app)


async def until_loaded(base: str, limit_s: float = 120) -> dict:
    deadline = time.monotonic() + limit_s
    while not (now := await work(base)).get("loaded", True):
        if time.monotonic() > deadline:
            raise TimeoutError("the model did not load")
        await asyncio.sleep(0.5)
    return now


async def when_settled(base: str, limit_s: float = 30) -> dict:
    """/model/work once no job read ahead waits or runs (each press's next step done)."""
    deadline = time.monotonic() + limit_s
    while (now := await work(base)).get("ahead_busy", False) and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    return now


def steps_shown(texts: list[str]) -> int:
    return max((int(m.group(1)) for text in texts if (m := STEP.match(text))), default=0)
