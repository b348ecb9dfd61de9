"""A replica lost mid-class, as deploy/local.sh runs it (three replicas behind nginx, Redis): a
room of students answering the teacher's question, one replica SIGKILLed, its students back
through nginx. Shared by tests/deploy/test_replica_lost.py, which checks every figure, and
bench/deploy.py's "lost" scenario, which prints them."""

import asyncio
import os
import signal
import time
from contextlib import AsyncExitStack
from dataclasses import dataclass

import redis

from tests.support.servers import route_cookies
from tests.support.session import connect, open_room


@dataclass
class Loss:
    code: str  # the room's
    before: list  # each choice's answers in Redis before the kill, and after
    after: list
    reconnect_s: float  # from the SIGKILL until every student of that replica was back
    back: list  # the students back (Learner), each with its replica and its page's text
    killed: str  # the replica killed
    revealed: list  # after the teacher's reveal, what each student back was told


def counts(port: int, password: str, code: str) -> list[int]:
    """Each choice's answers, read from Redis itself (the room's answers hash)."""
    client = redis.Redis(port=port, password=password, decode_responses=True)
    [key] = client.keys(f"answers:{code}:*")
    values = list(client.hgetall(key).values())
    return [values.count(str(k)) for k in range(3)]


async def _answer(student, index: int) -> None:
    choice = next(key for key in student.widgets if key.startswith("choice_"))
    question = choice.removeprefix("choice_")
    await student.run(student.choose(choice, index))
    await student.run(student.choose(choice, index), student.press(f"send_{question}"))


async def lose_a_replica(base, replicas, redis_port, password, students: int = 30) -> Loss:
    """The teacher on the first replica asks; ``students`` spread over all of them answer (the
    i-th chooses i mod 2); the last replica is killed and its students connect again with their
    route and browser cookies; the teacher reveals."""
    cookies = route_cookies(base, replicas)
    order = sorted(replicas)
    async with AsyncExitStack() as stack:
        _, code, key = await open_room(base, "en", cookies[order[0]], stack)
        view = f"room={code}&key={key}&lang=en&step=softmax&sentence=one+two+three"
        teacher = await connect(base, "", view, cookies[order[0]], stack)
        await teacher.run(teacher.press("room_ask"))
        lost = []
        for i in range(students):
            replica, browser = order[i % len(order)], f"{i + 1:032x}"
            student = await connect(base, "", f"room={code}&lang=zh", cookies[replica], stack,
                                    browser)  # fmt: skip
            assert student.replica == replica and not student.exceptions
            await _answer(student, i % 2)
            assert not student.exceptions, student.exceptions
            if replica == order[-1]:
                lost.append(browser)
        before = counts(redis_port, password, code)
        os.kill(replicas[order[-1]], signal.SIGKILL)
        killed = time.monotonic()
        back = await asyncio.gather(*(
            connect(base, "", f"room={code}&lang=zh", cookies[order[-1]], stack, browser)
            for browser in lost
        ))  # fmt: skip
        reconnect_s = time.monotonic() - killed
        after = counts(redis_port, password, code)
        await teacher.run(teacher.press("room_reveal"))
        revealed = []
        for student in back:
            texts = list(student.texts)
            await student.run()
            revealed.append(" ".join(student.texts))
            student.texts = texts  # what it showed on its return
        return Loss(code, before, after, reconnect_s, back, order[-1], revealed)
