"""The store every app process shares: strings, hashes and sorted sets with expiry, by key.

Two implementations pass one test suite (tests/server/test_store.py): SQLite, a file in the data
directory (the default), and Redis (``ROOM_STORE=redis://host:port/db``), which several app
processes behind a load balancer can share. Values are strings; callers keep JSON in them.

Every operation that reads and then writes is one atomic step on both stores: ``update`` (a
transaction on SQLite, WATCH/MULTI on Redis), ``hset_capped`` and ``zadd_capped`` (a transaction,
a Lua script). Any failure of the store itself (a server gone, a disk full, a folder that cannot
be written, a database file deleted) is raised as ``StoreError``, for one place to catch.
"""

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

import classroom.clock

DATA_DIR = Path(os.environ.get("SELF_ATTENTION_DATA", Path(__file__).resolve().parents[1] / "data"))
INF = float("inf")
_LOG = logging.getLogger(__name__)


REASONS = {  # StoreError.code -> the reason in English (logs, health); pages translate the code
    "sqlite_full": "the disk holding {file} is full",
    "sqlite_readonly": "the folder of {file} cannot be written",
    "sqlite_cannot_open": "{file} cannot be opened",
    "sqlite_deleted": "the database file {file} was deleted or replaced while in use",
    "sqlite_failed": "{file} failed",
    "redis_down": "the Redis server does not answer",
    "redis_auth": "the Redis server refused the password",
    "redis_cannot_write": "the Redis server cannot write (memory or disk)",
    "redis_failed": "the Redis server failed",
    "not_kept": "the store did not keep a value written to it",
}


class StoreError(Exception):
    """The store cannot be reached or written: ``code`` (a key of REASONS) and its ``params``;
    ``reason`` in English. None of them names a server's address."""

    def __init__(self, code: str, **params):
        self.code, self.params = code, params
        self.reason = REASONS[code].format(**params)
        super().__init__(self.reason)


def open_store(url: str | None = None):
    """The store named by ``url`` or $ROOM_STORE: redis://… for Redis, else SQLite in DATA_DIR."""
    url = url if url is not None else os.environ.get("ROOM_STORE", "")
    if url.startswith(("redis://", "rediss://", "unix://")):
        return RedisStore(url)
    return SQLiteStore(Path(url) if url else DATA_DIR / "rooms.sqlite3")


_shared, _shared_lock = None, threading.Lock()


def shared_store():
    """This process's store (open_store() once): the app's rooms and the server's health check
    use the same one."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = open_store()
        return _shared


_checked = {"at": -float("inf"), "problem": None}
CHECK_S = 5.0  # the shared store's test write is repeated at most this often


def shared_problem(clock: Callable[[], float] = time.monotonic) -> StoreError | None:
    """Why the shared store fails its test write (tried again at most every CHECK_S seconds of
    ``clock``), or None: the server's health and the room page both say it."""
    at = clock()
    with _shared_lock:
        due = at - _checked["at"] >= CHECK_S
    if due:
        problem = check(shared_store())
        with _shared_lock:
            if problem and (
                _checked["problem"] is None or problem.code != _checked["problem"].code
            ):
                _LOG.error("the room store does not work: %s", problem.reason)  # once a fault
            _checked.update(at=at, problem=problem)
    return _checked["problem"]


def check(store) -> StoreError | None:
    """Write, read back and delete a probe value: None when the store works, else why not."""
    probe = f"probe:{os.getpid()}:{threading.get_ident()}"
    try:
        store.set(probe, "ok", 30)
        ok = store.get(probe) == "ok"
        store.delete(probe)
    except StoreError as error:
        return error
    return None if ok else StoreError("not_kept")


class _CallersError(Exception):
    """An error raised by a caller's ``change``, carried through the transaction as it is."""

    def __init__(self, error: Exception):
        super().__init__(error)
        self.error = error


def _callers(change: Callable, old):
    """``change(old)``, its own errors kept apart from the store's (PermissionError is an
    OSError too, and a store error is an OSError on Redis)."""
    try:
        return change(old)
    except Exception as error:
        raise _CallersError(error) from error


_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT, expires REAL)",
    "CREATE TABLE IF NOT EXISTS hash (key TEXT, field TEXT, value TEXT, expires REAL,"
    " PRIMARY KEY (key, field))",
    "CREATE TABLE IF NOT EXISTS zset (key TEXT, member TEXT, score REAL, expires REAL,"
    " PRIMARY KEY (key, member))",
    # the sweeps and the counts below touch only the rows they need, through these
    "CREATE INDEX IF NOT EXISTS kv_expires ON kv (expires)",
    "CREATE INDEX IF NOT EXISTS hash_expires ON hash (expires)",
    "CREATE INDEX IF NOT EXISTS zset_expires ON zset (expires)",
    "CREATE INDEX IF NOT EXISTS zset_score ON zset (key, score)",
)


class SQLiteStore:
    """Keys, hash fields and set members in one SQLite file. Each row has its own expiry; expired
    rows are ignored, and swept (through an index, so only they are touched) on writes."""

    SWEEP_S = 1.0  # at most one sweep a second per process

    def __init__(self, path: Path, clock: Callable[[], float] = classroom.clock.now):
        self.path, self._clock = Path(path), clock
        self._lock = threading.Lock()
        self._swept = 0.0
        self._db = None
        try:
            self._connect()
        except (sqlite3.Error, OSError):
            self._db = None  # every call says why, and tries again: the folder may be fixed

    def _connect(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=10)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")  # WAL's usual: a crash of the app loses nothing
        for statement in _SCHEMA:
            db.execute(statement)
        self._db, self._inode = db, self.path.stat().st_ino

    def _transaction(self, work: Callable, write: bool = True):
        """``work(db, now)`` inside one transaction (BEGIN IMMEDIATE when it writes, so that two
        processes on one file take turns); SQLite's failures become StoreError."""
        with self._lock:
            try:
                if self._db is None or not self._file_is_ours():
                    self._reopen()
                now = self._clock()
                self._db.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                try:
                    result = work(self._db, now)
                    if write and now - self._swept >= self.SWEEP_S:
                        self._sweep(now)
                except BaseException:
                    if self._db.in_transaction:  # SQLite ends some (a full disk) by itself
                        self._db.execute("ROLLBACK")
                    raise
                self._db.execute("COMMIT")
                return result
            except _CallersError as error:
                raise error.error from None
            except (sqlite3.Error, OSError) as error:
                raise StoreError(_sqlite_reason(error), file=self.path.name) from error

    def _file_is_ours(self) -> bool:
        """False when the database file was deleted or replaced under this process."""
        try:
            return self.path.stat().st_ino == self._inode
        except OSError:
            return False

    def _reopen(self) -> None:
        if self._db is not None:  # deleted or replaced under us: say so loudly, once, then go on
            self._db.close()  # with a new file (the rooms it held are gone)
            self._db = None
            error = StoreError("sqlite_deleted", file=self.path.name)
            _LOG.error("%s (%s): every room it held is lost", error.reason, self.path)
            raise error
        self._connect()

    def _sweep(self, now: float) -> None:
        for table in ("kv", "hash", "zset"):
            self._db.execute(f"DELETE FROM {table} WHERE expires <= ?", (now,))
        self._swept = now

    # values
    def get(self, key: str) -> str | None:
        return self._transaction(lambda db, now: _value(db, key, now), write=False)

    def set(self, key: str, value: str, ttl: float) -> None:
        self._transaction(lambda db, now: _put(db, key, value, now + ttl))

    def set_new(self, key: str, value: str, ttl: float) -> bool:
        """Set ``key`` only if it holds nothing (live): True when this call set it."""

        def work(db, now):
            if _value(db, key, now) is not None:
                return False
            _put(db, key, value, now + ttl)
            return True

        return self._transaction(work)

    def update(self, key: str, change: Callable[[str | None], str | None], ttl: float):
        """Atomically: ``change(old)`` gives the new value (None leaves the key as it is);
        returns what ``change`` returned. ``change`` may raise, and then nothing is written."""

        def work(db, now):
            new = _callers(change, _value(db, key, now))
            if new is not None:
                _put(db, key, new, now + ttl)
            return new

        return self._transaction(work)

    def delete(self, *keys: str) -> None:
        def work(db, now):
            for key in keys:
                for table in ("kv", "hash", "zset"):
                    db.execute(f"DELETE FROM {table} WHERE key = ?", (key,))

        self._transaction(work)

    # hashes
    def hset_capped(
        self, key: str, field: str, value: str, cap: int, ttl: float, guard=None
    ) -> bool:
        """Set ``field`` if it is already there or the hash holds fewer than ``cap`` fields, and
        (with ``guard=(other_key, value)``) only while that key holds that value."""

        def work(db, now):
            if guard is not None and _value(db, guard[0], now) != guard[1]:
                return False
            there = db.execute(
                "SELECT 1 FROM hash WHERE key = ? AND field = ? AND expires > ?", (key, field, now)
            )
            if not _first(there):
                count = db.execute(
                    "SELECT COUNT(*) FROM hash WHERE key = ? AND expires > ?", (key, now)
                )
                if _first(count) >= cap:
                    return False
            db.execute("INSERT OR REPLACE INTO hash VALUES (?, ?, ?, ?)",
                       (key, field, value, now + ttl))  # fmt: skip
            return True

        return self._transaction(work)

    def hgetall(self, key: str) -> dict[str, str]:
        def work(db, now):
            rows = db.execute(
                "SELECT field, value FROM hash WHERE key = ? AND expires > ?", (key, now)
            )
            return dict(rows.fetchall())

        return self._transaction(work, write=False)

    def hlen(self, key: str) -> int:
        def work(db, now):
            rows = db.execute("SELECT COUNT(*) FROM hash WHERE key = ? AND expires > ?", (key, now))
            return _first(rows)

        return self._transaction(work, write=False)

    # sorted sets: members with a score (a time, here)
    def zadd_capped(
        self, key: str, member: str, score: float, cap: int, ttl: float, drop_below=-INF
    ) -> bool:
        """Drop the members scored below ``drop_below``, then set ``member``'s score if it is
        there already or the set holds fewer than ``cap``: True when it was set."""

        def work(db, now):
            db.execute("DELETE FROM zset WHERE key = ? AND score < ?", (key, drop_below))
            there = db.execute(
                "SELECT 1 FROM zset WHERE key = ? AND member = ? AND expires > ?",
                (key, member, now),
            )
            if not _first(there) and _zcard(db, key, now) >= cap:
                return False
            db.execute("INSERT OR REPLACE INTO zset VALUES (?, ?, ?, ?)",
                       (key, member, score, now + ttl))  # fmt: skip
            return True

        return self._transaction(work)

    def zcount(self, key: str, low: float = -INF) -> int:
        def work(db, now):
            rows = db.execute(
                "SELECT COUNT(*) FROM zset WHERE key = ? AND score >= ? AND expires > ?",
                (key, low, now),
            )
            return _first(rows)

        return self._transaction(work, write=False)

    def zlowest(self, key: str, n: int) -> list[tuple[str, float]]:
        """The ``n`` members with the lowest scores, lowest first."""

        def work(db, now):
            rows = db.execute(
                "SELECT member, score FROM zset WHERE key = ? AND expires > ?"
                " ORDER BY score LIMIT ?",
                (key, now, n),
            )
            return rows.fetchall()

        return self._transaction(work, write=False)

    def zrem(self, key: str, member: str) -> None:
        def work(db, now):
            db.execute("DELETE FROM zset WHERE key = ? AND member = ?", (key, member))

        self._transaction(work)


def _first(rows):
    row = rows.fetchone()
    return row[0] if row else None


def _value(db, key: str, now: float) -> str | None:
    return _first(db.execute("SELECT value FROM kv WHERE key = ? AND expires > ?", (key, now)))


def _put(db, key: str, value: str, expires: float) -> None:
    db.execute("INSERT OR REPLACE INTO kv VALUES (?, ?, ?)", (key, value, expires))


def _zcard(db, key: str, now: float) -> int:
    return _first(db.execute("SELECT COUNT(*) FROM zset WHERE key = ? AND expires > ?", (key, now)))


def _sqlite_reason(error: Exception) -> str:
    text = str(error).lower()
    if "full" in text or getattr(error, "errno", None) == 28:
        return "sqlite_full"
    if "readonly" in text or "read-only" in text or isinstance(error, PermissionError):
        return "sqlite_readonly"
    if "unable to open" in text or isinstance(error, OSError):
        return "sqlite_cannot_open"
    _LOG.error("the room store failed: %s", error)
    return "sqlite_failed"


_HSET_CAPPED = """
if ARGV[5] ~= '' and redis.call('GET', KEYS[2]) ~= ARGV[5] then return 0 end
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0
   and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
"""

_ZADD_CAPPED = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[5])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) == false
   and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
"""


class RedisStore:
    """The same operations on a Redis server (expiry by Redis itself, per key)."""

    def __init__(self, url: str):
        import redis

        self._errors = (redis.RedisError, OSError)
        self._watch_error = redis.WatchError
        self._redis = redis.Redis.from_url(
            url, decode_responses=True, socket_timeout=2, socket_connect_timeout=2
        )
        self._hset_capped = self._redis.register_script(_HSET_CAPPED)
        self._zadd_capped = self._redis.register_script(_ZADD_CAPPED)

    def _call(self, work: Callable):
        try:
            return work(self._redis)
        except _CallersError as error:
            raise error.error from None
        except self._errors as error:
            raise StoreError(_redis_reason(error)) from error

    def get(self, key: str) -> str | None:
        return self._call(lambda r: r.get(key))

    def set(self, key: str, value: str, ttl: float) -> None:
        self._call(lambda r: r.set(key, value, px=_ms(ttl)))

    def set_new(self, key: str, value: str, ttl: float) -> bool:
        return bool(self._call(lambda r: r.set(key, value, px=_ms(ttl), nx=True)))

    def update(self, key: str, change: Callable[[str | None], str | None], ttl: float):
        def work(r):
            with r.pipeline() as pipe:
                while True:
                    try:
                        pipe.watch(key)
                        new = _callers(change, pipe.get(key))
                        pipe.multi()
                        if new is not None:
                            pipe.set(key, new, px=_ms(ttl))
                        pipe.execute()
                        return new
                    except self._watch_error:
                        continue  # another writer came first: read again

        return self._call(work)

    def delete(self, *keys: str) -> None:
        self._call(lambda r: r.delete(*keys))

    def hset_capped(
        self, key: str, field: str, value: str, cap: int, ttl: float, guard=None
    ) -> bool:
        keys = [key, guard[0] if guard else key]
        args = [field, value, cap, _ms(ttl), guard[1] if guard else ""]
        return bool(self._call(lambda r: self._hset_capped(keys=keys, args=args, client=r)))

    def hgetall(self, key: str) -> dict[str, str]:
        return self._call(lambda r: r.hgetall(key))

    def hlen(self, key: str) -> int:
        return self._call(lambda r: r.hlen(key))

    def zadd_capped(
        self, key: str, member: str, score: float, cap: int, ttl: float, drop_below=-INF
    ) -> bool:
        low = "-inf" if drop_below == -INF else repr(float(drop_below))
        args = [member, repr(float(score)), cap, _ms(ttl), low]
        return bool(self._call(lambda r: self._zadd_capped(keys=[key], args=args, client=r)))

    def zcount(self, key: str, low: float = -INF) -> int:
        return self._call(lambda r: r.zcount(key, "-inf" if low == -INF else low, "+inf"))

    def zlowest(self, key: str, n: int) -> list[tuple[str, float]]:
        return self._call(lambda r: r.zrange(key, 0, n - 1, withscores=True))

    def zrem(self, key: str, member: str) -> None:
        self._call(lambda r: r.zrem(key, member))


def _ms(seconds: float) -> int:
    return max(1, int(seconds * 1000))


def _redis_reason(error: Exception) -> str:
    """Why Redis failed, without its address (the page a student sees may show this)."""
    name, text = type(error).__name__, str(error)
    if "Auth" in name or "NOAUTH" in text or "WRONGPASS" in text:
        return "redis_auth"
    if "Connection" in name or "Timeout" in name or isinstance(error, OSError):
        return "redis_down"
    if "OOM" in text or "MISCONF" in text or "READONLY" in text:
        return "redis_cannot_write"
    _LOG.error("the room store failed: %s: %s", name, text)
    return "redis_failed"
