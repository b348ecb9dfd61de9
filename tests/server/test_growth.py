"""The cost page's growth figure holds on a busy machine or says that it cannot: the fit over the
sizes where n² dominates, its R², and the sweeps that must agree (measure/cost.py), and a busy
result that a new press measures again instead of joining (measure/queue.py)."""

import subprocess
import sys
import threading

import numpy as np
import pytest

from core import threads
from measure.cost import COST_NS, R2_MIN, SPREAD_MAX, fitted_growth
from measure.queue import MeasurementQueue, run_in_child
from tests.support.clock import Clock

NS = list(COST_NS)  # 64 … 4096


def _result(sweeps, rnn_power=1.0):
    """A measurement's result from these sweeps of attention times (one list per sweep)."""
    ns = np.array(NS, dtype=float)
    best = np.min(np.array(sweeps), axis=0)
    return {
        "n": NS,
        "attention": list(best),
        "memory": list(3e-6 * ns**2),
        "rnn": list(1e-6 * ns**rnn_power),
        "sweeps": [list(sweep) for sweep in sweeps],
    }


def _quadratic_sweeps(rng, count=5, noise=0.03):
    ns = np.array(NS, dtype=float)
    return [2e-9 * ns**2 * (1 + noise * rng.random(len(NS))) + 2e-5 for _ in range(count)]


def test_clean_sweeps_give_the_power_of_n_they_were_made_with():
    fit = fitted_growth(_result(_quadratic_sweeps(np.random.default_rng(0))), d_model=8)
    ns = np.array([n for n in NS if n >= 512], dtype=float)
    assert (fit["from_n"], fit["to_n"]) == (512, 4096)
    assert fit["time"] == pytest.approx(2.0, abs=0.05)
    assert fit["memory"] == pytest.approx(2.0, abs=1e-9)  # exactly 3e-6 n² over the range
    assert fit["rnn"] == pytest.approx(1.0, abs=1e-9)
    # R² recomputed here: 1 - residual / total of the log-log line
    x = np.log(ns)
    y = np.log(_result(_quadratic_sweeps(np.random.default_rng(0)))["attention"][-4:])
    line = np.polyval(np.polyfit(x, y, 1), x)
    assert fit["r2"] == pytest.approx(1 - np.sum((y - line) ** 2) / np.sum((y - y.mean()) ** 2))
    assert fit["r2"] >= R2_MIN and fit["spread"] <= SPREAD_MAX and fit["reliable"]


def test_the_fit_starts_where_the_n2_work_outweighs_the_projections():
    fit = fitted_growth(_result(_quadratic_sweeps(np.random.default_rng(1))), d_model=512)
    assert (fit["from_n"], fit["to_n"]) == (1024, 4096)  # n ≥ 2 d_model


def test_sweeps_that_disagree_say_the_machine_was_busy():
    """One sweep timed while the measurement waited for a core: its large n stretched by the
    wait (as wall time was under 24 presses, n^1.20), the best of each n still looks clean."""
    rng = np.random.default_rng(2)
    sweeps = _quadratic_sweeps(rng)
    ns = np.array(NS, dtype=float)
    sweeps[3] = sweeps[3] + 0.08 * (ns >= 512)  # 80 ms of waiting in every large pass
    fit = fitted_growth(_result(sweeps), d_model=8)
    assert fit["spread"] > SPREAD_MAX and not fit["reliable"]
    low = min(fit["sweeps"])
    assert low < 1.5  # that sweep alone would have printed a wrong lesson


def test_a_poor_line_on_log_log_axes_is_not_a_growth_figure():
    ns = np.array(NS, dtype=float)
    bumpy = 1e-4 * (1 + 30 * (ns == 1024))  # flat, with one slow size: no power of n
    fit = fitted_growth(_result([bumpy] * 5), d_model=8)
    assert fit["r2"] < R2_MIN and not fit["reliable"]


def test_a_busy_result_is_measured_again_and_a_reliable_one_joined():
    runs = []

    def measured(busy):
        def run(job, args, on_step):
            runs.append(job)
            return {"busy": busy, "n": [512]}

        return run

    for busy, expected_runs in ((True, 2), (False, 1)):
        runs.clear()
        queue = MeasurementQueue(run=measured(busy), clock=Clock())
        first = queue.request(("cost", 8, 2), "cost", {}, "a")
        assert first.event.wait(10)
        again = queue.request(("cost", 8, 2), "cost", {}, "b")
        assert again.event.wait(10)
        assert len(runs) == expected_runs
        assert (again is first) == (not busy)
        assert (queue.latest(("cost", 8, 2)) is None) == busy  # nobody else is shown it


def test_one_core_keeps_every_pass_on_the_calling_thread_and_gives_the_pool_back():
    workers = threads.WORKERS
    seen = []
    with threads.on_one_core():
        assert threads.WORKERS == 1
        threads.each(
            lambda item: seen.append(threading.current_thread()), range(8), threads.PARALLEL_FROM
        )
    assert threads.WORKERS == workers
    assert set(seen) == {threading.current_thread()}


def test_the_flash_pages_memory_is_the_same_bytes_on_a_busy_machine():
    """Counted, not timed: the peak bytes a child measures while two processes keep both cores
    busy are the quiet child's, to the byte."""
    args = {"ns": [256, 512], "d_k": 64, "tile": 64}
    quiet = run_in_child("flash_memory", args, lambda done, n: None)
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        busy = run_in_child("flash_memory", args, lambda done, n: None)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert busy == quiet
    assert quiet["full"][1] >= 512 * 512 * 8 / 2**20  # the full pass holds S [n, n] in float64
