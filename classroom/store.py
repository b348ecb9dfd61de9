"""The store every app process shares: string values and hashes with expiry, by key.

Two implementations pass one test suite (tests/server/test_store.py): SQLite, a file in the data
directory (the default), and Redis (``ROOM_STORE=redis://host:port/db``), which several app
processes behind a load balancer can share. Values are strings; callers keep JSON in them.
"""

import os
import sqlite3
import threading
import time
from pathlib import Path

DATA_DIR = Path(os.environ.get("SELF_ATTENTION_DATA", Path(__file__).resolve().parents[1] / "data"))


def open_store(url: str | None = None):
    """The store named by ``url`` or $ROOM_STORE: redis://… for Redis, else SQLite in DATA_DIR."""
    url = url if url is not None else os.environ.get("ROOM_STORE", "")
    if url.startswith(("redis://", "rediss://", "unix://")):
        return RedisStore(url)
    return SQLiteStore(Path(url) if url else DATA_DIR / "rooms.sqlite3")


class SQLiteStore:
    """Keys and hash fields in one SQLite file; expired rows are ignored and swept on write."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=10)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT, expires REAL)"
        )
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS hash (key TEXT, field TEXT, value TEXT, expires REAL,"
            " PRIMARY KEY (key, field))"
        )
        self._lock = threading.Lock()

    def _run(self, sql: str, args=()) -> list:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def get(self, key: str) -> str | None:
        rows = self._run("SELECT value FROM kv WHERE key = ? AND expires > ?", (key, time.time()))
        return rows[0][0] if rows else None

    def set(self, key: str, value: str, ttl: float) -> None:
        now = time.time()
        self._run("DELETE FROM kv WHERE expires <= ?", (now,))
        self._run("INSERT OR REPLACE INTO kv VALUES (?, ?, ?)", (key, value, now + ttl))

    def set_new(self, key: str, value: str, ttl: float) -> bool:
        """Set ``key`` only if it holds nothing (live): True when this call set it."""
        now = time.time()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                live = self._db.execute(
                    "SELECT 1 FROM kv WHERE key = ? AND expires > ?", (key, now)
                ).fetchall()
                if not live:
                    self._db.execute(
                        "INSERT OR REPLACE INTO kv VALUES (?, ?, ?)", (key, value, now + ttl)
                    )
            finally:
                self._db.execute("COMMIT")
        return not live

    def count(self, prefix: str) -> int:
        """How many live keys start with ``prefix`` (hashes not included)."""
        like = prefix.replace("%", r"\%").replace("_", r"\_") + "%"
        rows = self._run(
            "SELECT COUNT(*) FROM kv WHERE key LIKE ? ESCAPE '\\' AND expires > ?",
            (like, time.time()),
        )
        return rows[0][0]

    def hset(self, key: str, field: str, value: str, ttl: float) -> None:
        now = time.time()
        self._run("DELETE FROM hash WHERE expires <= ?", (now,))
        self._run("INSERT OR REPLACE INTO hash VALUES (?, ?, ?, ?)", (key, field, value, now + ttl))
        self._run("UPDATE hash SET expires = ? WHERE key = ?", (now + ttl, key))

    def hgetall(self, key: str) -> dict[str, str]:
        rows = self._run(
            "SELECT field, value FROM hash WHERE key = ? AND expires > ?", (key, time.time())
        )
        return dict(rows)

    def hlen(self, key: str) -> int:
        rows = self._run(
            "SELECT COUNT(*) FROM hash WHERE key = ? AND expires > ?", (key, time.time())
        )
        return rows[0][0]

    def delete(self, key: str) -> None:
        self._run("DELETE FROM kv WHERE key = ?", (key,))
        self._run("DELETE FROM hash WHERE key = ?", (key,))


class RedisStore:
    """The same operations on a Redis server (expiry by Redis itself)."""

    def __init__(self, url: str):
        import redis

        self._redis = redis.Redis.from_url(url, decode_responses=True)

    def get(self, key: str) -> str | None:
        return self._redis.get(key)

    def set(self, key: str, value: str, ttl: float) -> None:
        self._redis.set(key, value, px=int(ttl * 1000))

    def set_new(self, key: str, value: str, ttl: float) -> bool:
        return bool(self._redis.set(key, value, px=int(ttl * 1000), nx=True))

    def count(self, prefix: str) -> int:
        return sum(1 for _ in self._redis.scan_iter(match=_glob_escape(prefix) + "*", count=500))

    def hset(self, key: str, field: str, value: str, ttl: float) -> None:
        with self._redis.pipeline() as pipe:
            pipe.hset(key, field, value)
            pipe.pexpire(key, int(ttl * 1000))
            pipe.execute()

    def hgetall(self, key: str) -> dict[str, str]:
        return self._redis.hgetall(key)

    def hlen(self, key: str) -> int:
        return self._redis.hlen(key)

    def delete(self, key: str) -> None:
        self._redis.delete(key)


def _glob_escape(text: str) -> str:
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)
