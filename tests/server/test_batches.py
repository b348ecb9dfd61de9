"""scheduling/batches.py: requests that arrive together are served in one batch, each getting its
own result; an error reaches every request of its batch and no other; a leader stopped before
its turn hands the lead on, and its request is not run; batches take their turns at the model."""

import threading
import time

import pytest

from scheduling.batches import Batcher
from scheduling.turns import Turns
from tests.support.threads import join_all

RUN_S = 0.1


def calls_at_once(batcher, items, results):
    start = threading.Barrier(len(items))

    def call(k, item):
        start.wait()
        try:
            results[k] = batcher(item)
        except Exception as error:
            results[k] = error

    threads = [threading.Thread(target=call, args=(k, x)) for k, x in enumerate(items)]
    for thread in threads:
        thread.start()
    return threads


def test_requests_that_arrive_together_are_served_together_each_its_own_result():
    sizes = []

    def run(items):
        sizes.append(len(items))
        time.sleep(RUN_S)
        return [item * 2 for item in items]

    batcher, results = Batcher(run, most=8), [None] * 20
    join_all(calls_at_once(batcher, list(range(20)), results))
    assert results == [2 * k for k in range(20)]
    assert sum(sizes) == 20 and max(sizes) <= 8
    assert len(sizes) <= 5  # one alone at most, then full batches (20 one by one: 20)
    assert batcher.batches == len(sizes) and batcher.items == 20


def test_an_error_reaches_its_batch_only():
    batches = []

    def run(items):
        batches.append(list(items))
        time.sleep(RUN_S)
        if -1 in items:
            raise ValueError("bad item")
        return items

    batcher, first = Batcher(run, most=32), [None] * 6
    join_all(calls_at_once(batcher, [1, 2, -1, 3, 4, 5], first))
    failed = next(batch for batch in batches if -1 in batch)
    for item, result in zip([1, 2, -1, 3, 4, 5], first, strict=True):
        assert isinstance(result, ValueError) if item in failed else result == item
    later = [None] * 3
    join_all(calls_at_once(batcher, [4, 5, 6], later))
    assert later == [4, 5, 6]


class Rerun(Exception):
    pass


def test_a_leader_stopped_before_its_turn_hands_the_lead_on():
    local = threading.local()

    class Line:  # the leader's session reruns while it waits for its turn
        def wait(self, ahead):
            if getattr(local, "stop", False):
                raise Rerun

        def done(self):
            pass

    turns, release, ran = Turns(1, show=Line), threading.Event(), []
    batcher = Batcher(lambda items: ran.extend(items) or items, turns)
    outcome = {}

    def holder():
        with turns.turn():
            release.wait(5)

    def ask(name, stop):
        local.stop = stop
        try:
            outcome[name] = batcher(name)
        except Rerun:
            outcome[name] = "rerun"

    threads = [threading.Thread(target=holder)]
    threads += [threading.Thread(target=ask, args=("leader", True))]
    threads += [threading.Thread(target=ask, args=(f"s{k}", False)) for k in range(3)]
    for thread in threads:
        thread.start()
        time.sleep(0.05)
    time.sleep(0.5)
    release.set()
    join_all(threads)
    assert outcome == {"leader": "rerun", "s0": "s0", "s1": "s1", "s2": "s2"}
    assert sorted(ran) == ["s0", "s1", "s2"]  # the stopped leader's item never ran


def test_batches_take_turns_with_the_model_s_other_jobs():
    turns, running, most = Turns(1), [0], [0]
    lock = threading.Lock()

    def busy():
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(RUN_S / 2)
        with lock:
            running[0] -= 1

    def run(items):
        busy()
        return items

    batcher, results = Batcher(run, turns), [None] * 6
    threads = calls_at_once(batcher, list(range(6)), results)

    def other_job():
        with turns.turn():
            busy()

    others = [threading.Thread(target=other_job) for _ in range(3)]
    for thread in others:
        thread.start()
    join_all(threads + others)
    assert results == list(range(6)) and most[0] == 1


@pytest.mark.parametrize("most", [1, 3])
def test_never_more_than_most_in_a_batch(most):
    sizes = []
    batcher = Batcher(lambda items: sizes.append(len(items)) or items, most=most)
    results = [None] * 7
    join_all(calls_at_once(batcher, list(range(7)), results))
    assert results == list(range(7)) and max(sizes) <= most
