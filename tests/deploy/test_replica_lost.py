"""A replica lost mid-class: three replicas behind nginx and Redis (deploy/local.sh), a room of 30
students answering the teacher's question, and one replica killed with SIGKILL. Its students
reconnect through nginx to another replica within 10 s, still in their room, on the teacher's
view, with the answer they sent; the teacher's key still drives the room; the counts stay exact,
none lost and none doubled."""

import asyncio
import os
import signal
import time
from contextlib import AsyncExitStack

import redis

from tests.support.servers import deployed, route_cookies
from tests.support.session import connect, open_room

PASSWORD = "a class's own password"
STUDENTS = 30
RECONNECT_S = 10


async def _answer(student, index: int) -> None:
    choice = next(key for key in student.widgets if key.startswith("choice_"))
    question = choice.removeprefix("choice_")
    await student.run(student.choose(choice, index))
    await student.run(student.choose(choice, index), student.press(f"send_{question}"))


def _counts(port: int, code: str) -> list[int]:
    """Each choice's answers, read from Redis itself (the room's answers hash)."""
    client = redis.Redis(port=port, password=PASSWORD, decode_responses=True)
    [key] = client.keys(f"answers:{code}:*")
    values = list(client.hgetall(key).values())
    return [values.count(str(k)) for k in range(3)]


def test_a_room_of_30_loses_a_replica_mid_question_and_nothing_else(tmp_path):
    env = {"REDIS_DATA": str(tmp_path / "redis"), "REDIS_PASSWORD": PASSWORD}
    with deployed(3, env) as (base, replicas, redis_port):
        cookies = route_cookies(base, replicas)
        a, b, c = sorted(replicas)

        async def scenario():
            async with AsyncExitStack() as stack:
                _, code, key = await open_room(base, "en", cookies[a], stack)
                view = f"room={code}&key={key}&lang=en&step=softmax&sentence=one+two+three"
                teacher = await connect(base, "", view, cookies[a], stack)
                await teacher.run(teacher.press("room_ask"))
                students = []
                for i in range(STUDENTS):
                    replica, browser = (a, b, c)[i % 3], f"{i + 1:032x}"
                    student = await connect(base, "", f"room={code}&lang=zh", cookies[replica],
                                            stack, browser)  # fmt: skip
                    assert student.replica == replica
                    await _answer(student, i % 2)
                    assert not student.exceptions, student.exceptions
                    students.append((student, replica, browser, i % 2))
                before = _counts(redis_port, code)
                assert before == [15, 15, 0]

                os.kill(replicas[c], signal.SIGKILL)  # a third of the class's replica dies
                killed = time.monotonic()
                lost = [s for s in students if s[1] == c]
                back = await asyncio.gather(*(
                    connect(base, "", f"room={code}&lang=zh", cookies[c], stack, browser)
                    for _, _, browser, _ in lost
                ))  # fmt: skip
                reconnected = time.monotonic() - killed
                for student in back:
                    assert student.replica.split(", ")[-1] in (a, b)  # nginx moved them
                    texts = " ".join(student.texts)
                    assert f"课堂 {code}" in texts and "3 个 token" in texts  # room, view
                    assert "已提交：" in texts  # the answer they sent, not the choices again
                    assert not any(k.startswith("choice_") for k in student.widgets)
                assert _counts(redis_port, code) == before  # none lost, none doubled

                await teacher.run(teacher.press("room_reveal"))  # the key still drives it
                for student in back:
                    await student.run()  # each told whether the answer they sent was right
                    said = " ".join(student.texts)
                    assert "答对了：" in said or "你选的是" in said, said[-300:]
                return reconnected

        reconnected = asyncio.run(asyncio.wait_for(scenario(), 300))
    print(f"10 students back through nginx {reconnected:.2f} s after the SIGKILL")
    assert reconnected < RECONNECT_S
