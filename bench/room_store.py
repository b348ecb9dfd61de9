"""The room store attacked as a mischievous student would, on both stores (SQLite in a temporary
file, and a redis-server started here on loopback), each figure measured in this run:

- heartbeat and "connected" costs with 1k and 100k rows in the store, and another room's;
- lockout: 600 presses of "Open a room" from 30 sessions, then 2,000 sessions each opening one;
- ballot stuffing: one browser answering through reloads, 310 scripted browsers, a racing cap;
- a fake crowd of 80 that stops;
- lost updates: two teacher tabs, 1,200 racing publishes, questions asked while publishing;
- memory: what a room costs in Redis, for a class of 60 and at every cap.

Run: python bench/room_store.py   (or python bench/classroom.py store). Stops by itself.
"""

import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from classroom import rooms as rooms_module  # noqa: E402
from classroom.rooms import ALIVE_S, Rooms  # noqa: E402
from classroom.store import RedisStore, SQLiteStore  # noqa: E402
from tests.support.clock import Clock  # noqa: E402
from tests.support.rooms import race  # noqa: E402
from tests.support.rooms import sample_question as question  # noqa: E402


def ms(work, repeat=200) -> float:
    """Median milliseconds of ``work()``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def fill_rows(store, rows: int, now: float) -> None:
    """``rows`` live rows in other rooms' connected sets (500 a room), written in bulk."""
    per_room = 500
    if isinstance(store, SQLiteStore):
        with store._lock:
            store._db.execute("BEGIN")
            store._db.executemany(
                "INSERT OR REPLACE INTO zset VALUES (?, ?, ?, ?)",
                ((f"alive:F{i // per_room:04d}", f"b{i}", now, now + 3600) for i in range(rows)),
            )
            store._db.execute("COMMIT")
    else:
        with store._redis.pipeline(transaction=False) as pipe:
            for i in range(rows):
                pipe.zadd(f"alive:F{i // per_room:04d}", {f"b{i}": now})
                if i % 5000 == 4999:
                    pipe.execute()
            pipe.execute()


def costs(rooms, code, other) -> tuple[float, float, float]:
    """Milliseconds: a heartbeat in ``code``, counting its connected, a heartbeat in ``other``."""
    return (
        ms(lambda: rooms.heartbeat(code, "student-1")),
        ms(lambda: rooms.connected(code)),
        ms(lambda: rooms.heartbeat(other, "pupil-1")),
    )


def heartbeats(store_of, label: str) -> None:
    print(f"\n-- heartbeat and count, {label}")
    print("rows in the store | heartbeat ms | connected ms | another room's heartbeat ms")
    for rows in (1_000, 100_000):
        store = store_of()
        clock = Clock()
        rooms = Rooms(store, clock=clock)
        code, _ = rooms.open("teacher")
        other, _ = rooms.open("other teacher")
        for i in range(40):
            rooms.heartbeat(code, f"student-{i}")
            rooms.heartbeat(other, f"pupil-{i}")
        fill_rows(store, rows, clock.now)
        beat, count, beside = costs(rooms, code, other)
        print(f"{rows:>17,} | {beat:12.3f} | {count:12.3f} | {beside:12.3f}")
    store = store_of()
    clock = Clock()
    rooms = Rooms(store, clock=clock)
    code, _ = rooms.open("teacher")
    for i in range(100_000 if label.startswith("Redis") else 30_000):  # a stream of bots
        clock.now += 0.001
        rooms.heartbeat(code, f"bot-{i}")
    held = store.zcount(f"alive:{code}")
    print(f"one room after a stream of bots: {held} rows held (cap {rooms_module.MAX_ALIVE}),"
          f" heartbeat {ms(lambda: rooms.heartbeat(code, 'bot-1')):.3f} ms")  # fmt: skip


def attacks(store_of, label: str) -> None:
    print(f"\n-- attacks, {label}")
    store = store_of()
    rooms = Rooms(store)
    start = time.perf_counter()
    race(lambda i: [rooms.open(f"session-{i}") for _ in range(20)], n=30)
    took = time.perf_counter() - start
    print(f"lockout: 600 presses from 30 sessions in {took:.1f} s leave"
          f" {store.zcount('rooms')} rooms (one per browser)")  # fmt: skip
    clock = Clock()
    rooms = Rooms(store, clock=clock)
    class_code, key = rooms.open("a real teacher")
    rooms.publish(class_code, key, {"step": "softmax"})
    rooms.heartbeat(class_code, "a real student")
    start = time.perf_counter()
    for i in range(2 * rooms_module.MAX_ROOMS):
        clock.now += 0.01
        rooms.open(f"scripted-{i}")
    took = time.perf_counter() - start
    code, _ = rooms.open("a teacher who comes now")
    print(f"lockout: {2 * rooms_module.MAX_ROOMS} scripted sessions opened a room each in"
          f" {took:.1f} s; the store holds {store.zcount('rooms')} (MAX_ROOMS"
          f" {rooms_module.MAX_ROOMS}); the class in progress kept its view:"
          f" {rooms.get(class_code)['view'] == {'step': 'softmax'}}; a new teacher got room"
          f" {code}")  # fmt: skip

    rooms = Rooms(store_of())
    code, key = rooms.open("teacher")
    q = rooms.ask(code, key, question())
    for _ in range(4):  # answer, reload, new tab, after a restart: the same cookie
        rooms.answer(code, q, "one browser", 0)
    print(f"stuffing: one browser answering 4 times leaves {sum(rooms.answers(code, q))} answer")
    for i in range(310):
        rooms.answer(code, q, f"script-{i}", 0)
    real = rooms.answer(code, q, "the real student", 1)
    print(f"stuffing: after 310 scripted browsers the next real student's answer is taken: {real}"
          f" ({sum(rooms.answers(code, q))} answers; cap {rooms_module.MAX_ANSWERS})")  # fmt: skip
    saved = rooms_module.MAX_ANSWERS
    rooms_module.MAX_ANSWERS = 300
    q2 = rooms.ask(code, key, question(1))
    race(lambda i: [rooms.answer(code, q2, f"t{i}-{j}", 0) for j in range(20)], n=24)
    rooms_module.MAX_ANSWERS = saved
    print(f"stuffing: 24 threads x 20 answers against a cap of 300 stored"
          f" {sum(rooms.answers(code, q2))}")  # fmt: skip

    clock = Clock()
    rooms = Rooms(store_of(), clock=clock)
    code, key = rooms.open("teacher")
    for i in range(80):
        rooms.heartbeat(code, f"bot-{i}")
    crowd = rooms.connected(code)
    clock.now += ALIVE_S + 1
    rooms.heartbeat(code, "a real student")
    print(f"fake crowd: 80 scripted sessions show {crowd} connected; {ALIVE_S + 1:.0f} s after"
          f" they stop, {rooms.connected(code)} (the one real student)")  # fmt: skip

    rooms = Rooms(store_of())
    code, key = rooms.open("teacher")
    seen = {"a": None, "b": None}
    steps = [f"s{i}" for i in range(20)]
    for press in range(6):  # two tabs pressing Next in turn, each from the room's view
        tab = "ab"[press % 2]
        room = rooms.get(code)
        at = steps.index(room["view"].get("step", "s0")) if room["version"] else 0
        seen[tab], _ = rooms.publish(code, key, {"step": steps[at + 1]}, seen=room["version"])
    print(f"two teacher tabs: 6 presses moved the class {rooms.get(code)['view']['step']}"
          f" (from s0: {steps.index(rooms.get(code)['view']['step'])} steps)")  # fmt: skip
    views_of = {}

    def publisher(t):
        mine = None
        for i in range(200):
            version, view = rooms.publish(code, key, {"step": f"{t}-{i}"}, seen=mine)
            views_of.setdefault(version, set()).add(str(view))
            mine = version

    race(publisher, n=6)
    shared = sum(1 for views in views_of.values() if len(views) > 1)
    print(f"lost updates: 1,200 racing publishes: {shared} versions named two views")
    stop, lost = threading.Event(), 0

    def keep_publishing():
        i = 0
        while not stop.is_set():
            rooms.publish(code, key, {"step": f"p{i}"})
            i += 1

    thread = threading.Thread(target=keep_publishing)
    thread.start()
    for i in range(200):
        asked = rooms.ask(code, key, question(i))
        lost += rooms.get(code)["question"]["id"] != asked
    stop.set()
    thread.join()
    print(f"lost updates: {lost} of 200 questions lost when asked while the view changes")


def memory(redis_store) -> None:
    print("\n-- memory in Redis (MEMORY USAGE)")
    r = redis_store._redis
    r.flushdb()
    rooms = Rooms(redis_store)

    def room_bytes(code):
        keys = [k for k in r.scan_iter(match=f"*{code}*")]
        return sum(r.memory_usage(k) or 0 for k in keys)

    code, key = rooms.open("teacher")
    rooms.publish(code, key, {"step": "softmax", "sentence": "这 部 电影 很 好看"})
    q = rooms.ask(code, key, question())
    for i in range(60):
        rooms.heartbeat(code, f"student-{i}")
        rooms.answer(code, q, f"student-{i}", i % 3)
    print(f"a class of 60 with a question answered: {room_bytes(code) / 1024:.1f} kB")
    for i in range(rooms_module.MAX_ALIVE):
        rooms.heartbeat(code, f"bot-{i}")
    for i in range(rooms_module.MAX_ANSWERS):
        rooms.answer(code, q, f"bot-{i}", 0)
    worst = room_bytes(code)
    print(f"a room at every cap: {worst / 1024:.1f} kB; x MAX_ROOMS {rooms_module.MAX_ROOMS}"
          f" = {worst * rooms_module.MAX_ROOMS / 2**20:.0f} MB at most")  # fmt: skip


def report(redis_url: str) -> None:
    folder = Path(tempfile.mkdtemp())
    made = iter(range(10**6))

    def sqlite():
        return SQLiteStore(folder / f"s{next(made)}.sqlite3")

    def redis():
        store = RedisStore(redis_url)
        store._redis.flushdb()
        return store

    for store_of, label in ((sqlite, "SQLite"), (redis, "Redis")):
        heartbeats(store_of, label)
        attacks(store_of, label)
    memory(redis())


def main():
    from tests.support.servers import RedisServer

    with tempfile.TemporaryDirectory() as folder:
        server = RedisServer(Path(folder), fsync="everysec")  # as deploy/local.sh runs it
        try:
            report(server.url)
        finally:
            server.stop()


if __name__ == "__main__":
    main()
