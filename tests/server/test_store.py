"""One test suite for both stores: SQLite (a file) and Redis (a real redis-server, from
conftest.py). Every read-then-write is one atomic step, checked with threads racing. Time passes
when a test says so (conftest.py's ``later``), never by waiting."""

import logging

import pytest

import classroom.store
from classroom.store import (
    CHECK_S,
    RedisStore,
    SQLiteStore,
    StoreError,
    check,
    open_store,
    shared_problem,
)
from tests.support.clock import Clock
from tests.support.rooms import race


def test_values_expire(store, later):
    store.set("a", "1", ttl=600)
    store.set("b", "2", ttl=900)
    later(300)
    assert store.get("a") == "1" and store.get("b") == "2" and store.get("c") is None
    later(300)
    assert store.get("a") is None and store.get("b") == "2"  # each key by its own TTL
    assert store.set_new("a", "again", 600)  # an expired key is free again
    assert store.update("b", lambda old: old + "!", ttl=600) == "2!"  # a write sets a new TTL
    later(500)
    assert store.get("a") == "again" and store.get("b") == "2!"
    later(101)
    assert store.get("a") is None and store.get("b") is None


def test_set_new_sets_only_an_absent_key(store):
    assert store.set_new("room:X", "first", 10)
    assert not store.set_new("room:X", "second", 10)
    assert store.get("room:X") == "first"


def test_update_is_atomic_no_increment_is_lost(store):
    def add_one(old):
        return str(int(old or 0) + 1)

    race(lambda i: [store.update("n", add_one, 10) for _ in range(10)], n=12)
    assert store.get("n") == "120"


def test_update_that_raises_or_returns_none_writes_nothing(store):
    store.set("k", "old", 10)
    assert store.update("k", lambda old: None, 10) is None
    with pytest.raises(ZeroDivisionError):
        store.update("k", lambda old: str(1 / 0), 10)
    assert store.get("k") == "old"
    assert store.update("absent", lambda old: "made" if old is None else "no", 10) == "made"


def test_a_capped_hash_never_holds_more_than_its_cap_under_a_race(store):
    taken = race(lambda i: store.hset_capped("answers", f"s{i}", "0", 10, 10), n=24)
    assert sum(taken) == 10 and store.hlen("answers") == 10
    assert store.hset_capped("answers", "s0" if taken[0] else f"s{taken.index(True)}", "1", 10, 10)
    assert store.hlen("answers") == 10  # a field already there may change its value


def test_a_guarded_hash_write_needs_the_guard_value(store):
    store.set("open", "q1", 10)
    assert store.hset_capped("answers", "s1", "0", 10, 10, guard=("open", "q1"))
    assert not store.hset_capped("answers", "s2", "0", 10, 10, guard=("open", "q2"))
    store.delete("open")
    assert not store.hset_capped("answers", "s3", "0", 10, 10, guard=("open", "q1"))
    assert store.hgetall("answers") == {"s1": "0"}


def test_hashes_and_sorted_sets_expire(store, later):
    store.hset_capped("h", "s1", "0", 10, 600)
    store.zadd_capped("z", "m", 1.0, 10, 600)
    later(300)
    assert store.hgetall("h") == {"s1": "0"} and store.hlen("h") == 1
    assert store.zcount("z") == 1 and store.zlowest("z", 5) == [("m", 1.0)]
    later(301)
    assert store.hgetall("h") == {} and store.hlen("h") == 0
    assert store.zcount("z") == 0 and store.zlowest("z", 5) == []
    assert store.hset_capped("h", "s2", "0", 1, 600)  # the expired field no longer fills the cap


def test_sorted_sets_count_by_score_drop_the_old_and_keep_their_cap(store):
    for i in range(5):
        assert store.zadd_capped("alive", f"s{i}", float(i), 4, 10) == (i < 4)
    assert store.zcount("alive") == 4 and store.zcount("alive", 2.0) == 2
    assert store.zlowest("alive", 2) == [("s0", 0.0), ("s1", 1.0)]
    assert store.zadd_capped("alive", "s9", 9.0, 4, 10, drop_below=2.0)  # s0, s1 dropped first
    assert [m for m, _ in store.zlowest("alive", 10)] == ["s2", "s3", "s9"]
    assert store.zadd_capped("alive", "s2", 10.0, 3, 10)  # a member there already moves
    store.zrem("alive", "s3")
    assert store.zlowest("alive", 10) == [("s9", 9.0), ("s2", 10.0)]
    taken = race(lambda i: store.zadd_capped("crowd", f"s{i}", 1.0, 7, 10), n=20)
    assert sum(taken) == 7 and store.zcount("crowd") == 7


def test_delete_removes_values_hashes_and_sets(store):
    store.set("k", "v", 10)
    store.hset_capped("k2", "f", "v", 10, 10)
    store.zadd_capped("k3", "m", 1.0, 10, 10)
    store.delete("k", "k2", "k3")
    assert store.get("k") is None and store.hgetall("k2") == {} and store.zcount("k3") == 0


def test_check_writes_and_reads_back(store):
    assert check(store) is None


def test_the_sqlite_store_survives_a_restart(tmp_path):
    SQLiteStore(tmp_path / "s.sqlite3").set("room:KEEP", "1", 60)
    assert SQLiteStore(tmp_path / "s.sqlite3").get("room:KEEP") == "1"  # a new process's view


def test_sqlite_sweeps_only_expired_rows_through_an_index(tmp_path):
    store = SQLiteStore(tmp_path / "s.sqlite3")
    plans = [
        store._db.execute(f"EXPLAIN QUERY PLAN DELETE FROM {table} WHERE expires <= 1").fetchall()
        for table in ("kv", "hash", "zset")
    ]
    assert all("USING INDEX" in str(plan) or "USING COVERING INDEX" in str(plan) for plan in plans)
    plan = store._db.execute(
        "EXPLAIN QUERY PLAN SELECT COUNT(*) FROM zset WHERE key = 'a' AND score >= 1"
    ).fetchall()
    assert "zset_score" in str(plan) or "PRIMARY KEY" in str(plan)


def test_room_store_url_picks_the_store(tmp_path, redis_url):
    assert isinstance(open_store(str(tmp_path / "x.sqlite3")), SQLiteStore)
    assert isinstance(open_store(redis_url), RedisStore)


# faults: each becomes a StoreError with a reason that names no address


def test_a_sqlite_folder_that_cannot_be_written_says_so(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data folder should be")
    store = SQLiteStore(blocker / "rooms.sqlite3")  # opening does not raise: every call says why
    with pytest.raises(StoreError) as raised:
        store.set("k", "v", 10)
    assert "cannot be opened" in raised.value.reason or "written" in raised.value.reason
    assert check(store) is not None


def test_a_full_sqlite_database_says_so_and_keeps_what_it_held(tmp_path):
    store = SQLiteStore(tmp_path / "s.sqlite3")
    store.set("room:KEEP", "1", 60)
    store._db.execute(
        f"PRAGMA max_page_count = {store._db.execute('PRAGMA page_count').fetchone()[0]}"
    )
    with pytest.raises(StoreError) as raised:
        for i in range(10_000):
            store.set(f"filler:{i}", "x" * 1000, 60)
    assert "full" in raised.value.reason
    assert store.get("room:KEEP") == "1"


def test_a_sqlite_file_deleted_under_the_store_is_reported(tmp_path, caplog):
    path = tmp_path / "s.sqlite3"
    store = SQLiteStore(path)
    store.set("room:A", "1", 60)
    for suffix in ("", "-wal", "-shm"):
        (tmp_path / f"s.sqlite3{suffix}").unlink(missing_ok=True)
    with pytest.raises(StoreError) as raised:
        store.get("room:A")
    assert "deleted" in raised.value.reason
    assert any("deleted" in record.message for record in caplog.records)  # loudly, in the log
    assert store.get("room:A") is None and path.exists()  # then on with a new, empty file


def test_redis_down_and_back(redis_server):
    store = RedisStore(redis_server.url)
    store.set("room:KEEP", "1", 600)
    redis_server.kill()
    try:
        with pytest.raises(StoreError) as raised:
            store.get("room:KEEP")
        assert raised.value.reason == "the Redis server does not answer"
        assert str(redis_server.port) not in raised.value.reason
        assert check(store).code == "redis_down"
    finally:
        redis_server.start()
    assert store.get("room:KEEP") == "1"  # AOF: what it held came back with it


def test_the_shared_check_is_repeated_every_check_s_and_logs_a_fault_once(
    tmp_path, monkeypatch, caplog
):
    def broken(name):  # a store whose data folder is a file
        (tmp_path / name).write_text("a file where the data folder should be")
        return SQLiteStore(tmp_path / name / "rooms.sqlite3")

    monkeypatch.setattr(classroom.store, "_shared", broken("a"))
    monkeypatch.setattr(classroom.store, "_checked", {"at": -float("inf"), "problem": None})
    clock = Clock(100.0)
    with caplog.at_level(logging.ERROR, logger="classroom.store"):
        assert shared_problem(clock).code == "sqlite_cannot_open"
        (tmp_path / "a").unlink()  # the folder is fixed
        clock.now += CHECK_S - 0.1
        assert shared_problem(clock).code == "sqlite_cannot_open"  # not tried again yet
        clock.now += 0.1
        assert shared_problem(clock) is None  # tried again: it works
        monkeypatch.setattr(classroom.store, "_shared", broken("b"))
        for _ in range(3):  # broken again, and still broken at each check
            clock.now += CHECK_S
            assert shared_problem(clock).code == "sqlite_cannot_open"
    faults = [r for r in caplog.records if "does not work" in r.getMessage()]
    assert len(faults) == 2  # once for each fault, not once for each check
