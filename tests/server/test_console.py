"""The server's console while a class works: a teacher and two students (Chinese, English) in a
room on serve.py, the students' pages rerun once, and nothing on the console but Streamlit's
start-up lines: no warning per run, like the one a deprecated call logged for every session on
every run, and none for the teacher's view set into a student's widgets."""

import asyncio
from contextlib import AsyncExitStack

from tests.support.servers import serving
from tests.support.session import connect, open_room

STARTUP = ("You can now view your Streamlit app", "URL: http://", "Uvicorn server started")


async def _class(base: str) -> tuple[str, list[str]]:
    async with AsyncExitStack() as stack:
        _, code, key = await open_room(base, "zh", None, stack)
        await connect(base, "", f"room={code}&key={key}&lang=zh&step=softmax", None, stack)
        students = [await connect(base, "", f"room={code}&lang={lang}", None, stack)
                    for lang in ("zh", "en")]  # fmt: skip
        for page in students:  # (one rerun: this client sends no widget states, a browser all)
            await page.run()
        return code, [" ".join(page.texts) for page in students]


def test_a_class_leaves_nothing_on_the_servers_console_but_its_start(tmp_path):
    log = tmp_path / "console.txt"
    with serving(script="serve.py", log=log) as (port, _):
        code, (zh, en) = asyncio.run(asyncio.wait_for(_class(f"http://127.0.0.1:{port}"), 240))
    assert f"课堂 {code} · 正在跟着老师" in zh and "第 8 步，共 11 步" in zh  # the teacher's step
    assert f"Room {code} · following the teacher" in en and "Step 8 of 11" in en
    lines = [line.strip() for line in log.read_text(errors="replace").splitlines()]
    unexpected = [line for line in lines if line and not line.startswith(STARTUP)]
    assert not unexpected, "\n".join(unexpected[:20])
