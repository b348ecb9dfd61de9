"""The stores the server tests run on: SQLite (a file) and Redis (a real redis-server, started
here on a free loopback port with AOF persistence, and stopped after), and time that passes only
when a test says so (``later``)."""

import pytest

from classroom.store import RedisStore, SQLiteStore
from tests.support.clock import Clock
from tests.support.servers import RedisServer


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def redis_url(redis_server):
    return redis_server.url


@pytest.fixture
def clock():
    """The clock a test's rooms and SQLite store read: the system's time when the test starts
    (another process on the same file, on the system's clock, agrees with it), standing still
    until ``later`` moves it."""
    return Clock()


@pytest.fixture(params=["sqlite", "redis"])
def store(request, tmp_path, clock):
    if request.param == "sqlite":
        return SQLiteStore(tmp_path / "rooms.sqlite3", clock=clock)
    store = RedisStore(request.getfixturevalue("redis_url"))
    store._redis.flushdb()
    return store


@pytest.fixture
def later(store, clock):
    """``later(seconds)``: that much time passes, at once. The clock moves; and on Redis, which
    expires keys by its own clock (one a test cannot move), every key's time to live is shortened
    by as much, the keys it would outlive deleted: what the TTLs the store gave Redis make of that
    time. A key given no TTL lives on, as it would."""

    def move(seconds: float) -> None:
        clock.now += seconds
        if isinstance(store, RedisStore):
            _age_keys(store._redis, int(seconds * 1000))

    return move


def _age_keys(redis, ms: int) -> None:
    for key in redis.scan_iter():
        left = redis.pttl(key)  # -1: no TTL, -2: gone meanwhile
        if 0 <= left <= ms:
            redis.delete(key)
        elif left > ms:
            redis.pexpire(key, left - ms)
