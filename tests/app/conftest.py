"""The app's tests in AppTest: each test's own room store and clocks."""

import pytest

import classroom.clock
import ui.kit.player
from tests.support.clock import Clock


@pytest.fixture(scope="session", autouse=True)
def the_model_loaded():
    """Gemma loaded before any AppTest run, as on a server that has been up a while: a model
    page's first visit starts its load in the background and shows the wait, which AppTest, with no
    browser's timer, would not rerun (tests/deploy/test_model_load.py follows that wait)."""
    from ui.work import model_load

    if model_load.start_first():
        model_load.model(model_load.first())


@pytest.fixture
def gpu_app(gpu_stand_in):
    """The stand-in GPU for a whole app run, with the process-wide trace cache emptied before and
    after, so no result computed under it outlives the test."""
    from ui.work.traces import sentence_trace

    sentence_trace.cache_clear()
    yield gpu_stand_in
    sentence_trace.cache_clear()


@pytest.fixture(autouse=True)
def rooms_in_a_fresh_store(tmp_path, monkeypatch):
    """Every test's rooms in its own SQLite file (the app's default store), shared by the
    sessions a test runs, as one server's sessions share it."""
    import classroom.store
    import ui.room.connection

    monkeypatch.setenv("ROOM_STORE", str(tmp_path / "rooms.sqlite3"))
    monkeypatch.setattr(ui.room.connection, "_rooms", None)
    monkeypatch.setattr(classroom.store, "_shared", None)
    monkeypatch.setitem(classroom.store._checked, "at", -float("inf"))
    yield


@pytest.fixture(autouse=True)
def room_clock(monkeypatch):
    """The clock rooms and their store read (classroom/clock.py), standing still unless the test
    moves it: who counts as connected, when a room expires and how long a failed join waits do
    not depend on how fast the test runs."""
    clock = Clock()
    monkeypatch.setattr(classroom.clock, "source", clock)
    return clock


@pytest.fixture
def player_clock(monkeypatch):
    """The clock the step-through players' timer reads (ui/kit/player.py), standing still until
    the test moves it (``player_clock.now += INTERVAL_S``: what a second of playing does)."""
    clock = Clock(1000.0)
    monkeypatch.setattr(ui.kit.player, "clock", clock)
    return clock
