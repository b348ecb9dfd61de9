"""The stores the server tests run on: SQLite (a file) and Redis (a real redis-server, started
here on a free loopback port with AOF persistence, and stopped after)."""

import pytest

from classroom.store import RedisStore, SQLiteStore
from tests.support.servers import RedisServer


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def redis_url(redis_server):
    return redis_server.url


@pytest.fixture(params=["sqlite", "redis"])
def store(request, tmp_path):
    if request.param == "sqlite":
        return SQLiteStore(tmp_path / "rooms.sqlite3")
    store = RedisStore(request.getfixturevalue("redis_url"))
    store._redis.flushdb()
    return store
