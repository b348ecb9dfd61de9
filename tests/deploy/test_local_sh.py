"""deploy/local.sh for real: two app replicas behind nginx, sharing rooms through redis-server.

Sessions spread over both replicas; a room opened through one is followed through the other;
when one replica is killed its learners reconnect through the balancer and are still in the
room. Everything runs on loopback and stops at the end of the test."""

import asyncio
import http.client
import json
import os
import signal
import time
import urllib.request
from contextlib import AsyncExitStack
from urllib.parse import urlsplit

import pytest

from tests.support.servers import deployed, route_cookies
from tests.support.session import connect, open_room

PASSWORD = "a class's own password"


@pytest.fixture
def deployment(tmp_path):
    env = {"REDIS_DATA": str(tmp_path / "redis"), "REDIS_PASSWORD": PASSWORD}
    with deployed(2, env) as (base, replicas, redis_port):
        yield base, replicas, redis_port, tmp_path / "redis"
    for pid in replicas.values():  # everything it started has stopped
        assert not os.path.exists(f"/proc/{pid}") or _zombie(pid), f"replica {pid} still runs"


def _zombie(pid: int) -> bool:
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_two_replicas_share_rooms_and_lose_none_when_one_stops(deployment):
    base, replicas, _, _ = deployment
    cookies = route_cookies(base, replicas)
    a, b = sorted(replicas)

    async def scenario():
        async with AsyncExitStack() as stack:
            spread = [await connect(base, "", "lang=en", None, stack) for _ in range(10)]
            assert {learner.replica for learner in spread} == {a, b}  # new browsers spread

            room_page, code, key = await open_room(base, "en", cookies[a], stack)
            assert room_page.replica == a

            view = f"room={code}&key={key}&lang=en&step=softmax&sentence=one+two+three"
            teacher = await connect(base, "", view, cookies[a], stack)
            assert any("you are the teacher" in text for text in teacher.texts)
            student = await connect(base, "", f"room={code}&lang=zh", cookies[b], stack)
            assert student.replica == b
            texts = " ".join(student.texts)
            assert f"课堂 {code}" in texts and "3 个 token" in texts  # the teacher's sentence
            assert "按行 softmax" in texts  # and step, followed through the other replica

            def pulse(replica: str) -> str:  # what a student's browser asks, through nginx
                route = {"Cookie": f"route={cookies[replica]}"}
                request = urllib.request.Request(f"{base}/room/pulse?code={code}", headers=route)
                with urllib.request.urlopen(request, timeout=5) as response:
                    assert response.headers["X-Replica"] == replica
                    return json.loads(response.read())["pulse"]

            # the teacher's link through nginx, to the other replica: its cookie, no key after
            where = urlsplit(base)
            link = http.client.HTTPConnection(where.hostname, where.port, timeout=5)
            link.request(
                "GET",
                f"/room/teach?room={code}&key={key}&lang=zh",
                headers={"Cookie": f"route={cookies[b]}"},
            )
            reply = link.getresponse()
            assert reply.status == 303 and reply.getheader("X-Replica") == b
            assert reply.getheader("Location").endswith(f"/?room={code}&lang=zh")
            assert f"self_attention_teacher={code}:{key};" in reply.getheader("Set-Cookie")
            link.close()

            before = pulse(b)
            assert pulse(a) == before  # both replicas answer the same, from Redis
            await teacher.run(teacher.type_into("sentence", "one two three four"))
            assert pulse(b) != before  # the teacher's change on replica a, seen on b

            os.kill(replicas[a], signal.SIGKILL)  # the teacher's replica dies
            time.sleep(1)
            back = await connect(base, "", f"room={code}&lang=en", cookies[a], stack)
            assert back.replica.split(", ")[-1] == b  # nginx tried the dead one, then the other
            texts = " ".join(back.texts)
            assert f"Room {code}" in texts and "no room" not in texts.lower()

    asyncio.run(asyncio.wait_for(scenario(), 180))


def test_redis_keeps_the_rooms_on_disk_and_asks_for_the_password(deployment):
    import redis

    base, _, port, data = deployment
    assert port is not None, "deploy/local.sh did not say where redis-server listens"
    with pytest.raises(redis.AuthenticationError):
        redis.Redis(port=port).ping()  # no password: refused
    client = redis.Redis(port=port, password=PASSWORD, decode_responses=True)
    assert client.config_get("appendonly") == {"appendonly": "yes"}
    assert client.config_get("appendfsync") == {"appendfsync": "everysec"}
    client.set("room:PROBE", "1")
    time.sleep(1.5)  # appendfsync everysec
    files = [p for p in data.rglob("*") if p.is_file()]
    assert any(p.name.endswith(".aof") and b"room:PROBE" in p.read_bytes() for p in files)
    command_lines = [open(f"/proc/{pid}/cmdline", "rb").read() for pid in os.listdir("/proc")
                     if pid.isdigit() and os.path.exists(f"/proc/{pid}/cmdline")]  # fmt: skip
    assert not any(PASSWORD.encode() in line for line in command_lines)  # never on a command line
