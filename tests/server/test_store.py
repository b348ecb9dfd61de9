"""One test suite for both stores: SQLite (a file) and Redis (a real redis-server, started here on
a free loopback port and stopped after)."""

import shutil
import socket
import subprocess
import time

import pytest

from bench.server import free_port
from classroom.store import RedisStore, SQLiteStore, open_store


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory):
    server = shutil.which("redis-server")
    if server is None:
        pytest.fail("redis-server is not installed (apt-get install redis-server); .ci/run does")
    port = free_port()
    process = subprocess.Popen(
        [
            server,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(tmp_path_factory.mktemp("redis")),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    yield url
    process.terminate()
    process.wait(timeout=10)


@pytest.fixture(params=["sqlite", "redis"])
def store(request, tmp_path):
    if request.param == "sqlite":
        return SQLiteStore(tmp_path / "rooms.sqlite3")
    store = RedisStore(request.getfixturevalue("redis_url"))
    store._redis.flushdb()
    return store


def test_values_expire(store):
    store.set("a", "1", ttl=0.3)
    assert store.get("a") == "1" and store.get("b") is None
    time.sleep(0.4)
    assert store.get("a") is None


def test_set_new_sets_only_an_absent_key(store):
    assert store.set_new("room:X", "first", 10)
    assert not store.set_new("room:X", "second", 10)
    assert store.get("room:X") == "first"


def test_count_counts_live_keys_with_a_prefix_only(store):
    store.set("room:A", "1", 10)
    store.set("room:B", "1", 10)
    store.set("room_like", "1", 10)  # an underscore is not a wildcard
    store.set("other:C", "1", 10)
    store.set("room:D", "1", 0.2)
    time.sleep(0.3)
    assert store.count("room:") == 2


def test_hashes_hold_one_value_per_field_and_expire_together(store):
    store.hset("h", "s1", "0", 10)
    store.hset("h", "s2", "1", 10)
    store.hset("h", "s1", "2", 0.3)  # the last write sets the whole hash's expiry
    assert store.hgetall("h") == {"s1": "2", "s2": "1"} and store.hlen("h") == 2
    time.sleep(0.4)
    assert store.hgetall("h") == {} and store.hlen("h") == 0


def test_delete_removes_values_and_hashes(store):
    store.set("k", "v", 10)
    store.hset("k2", "f", "v", 10)
    store.delete("k")
    store.delete("k2")
    assert store.get("k") is None and store.hgetall("k2") == {}


def test_the_sqlite_store_survives_a_restart(tmp_path):
    SQLiteStore(tmp_path / "s.sqlite3").set("room:KEEP", "1", 60)
    assert SQLiteStore(tmp_path / "s.sqlite3").get("room:KEEP") == "1"  # a new process's view


def test_room_store_url_picks_the_store(tmp_path, redis_url):
    assert isinstance(open_store(str(tmp_path / "x.sqlite3")), SQLiteStore)
    assert isinstance(open_store(redis_url), RedisStore)
