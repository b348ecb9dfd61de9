"""AppTest for the curriculum pages: the numbers they draw against independent computations."""

import numpy as np
import pytest

from tests.app.helpers import chart_titled, decode, has_chart, page_text, run_app, run_until


def test_multi_head_split_is_a_reshape_of_the_projection():
    at = run_app("multi-head", lang="en", n_heads=4, d_model=8)
    assert not at.exception
    Q_all = decode(chart_titled(at, "X W_Q")["data"][0]["z"])  # [n, h*d_k]
    assert Q_all.shape == (5, 8)
    for h in range(4):  # head h is columns 2h, 2h+1 of X W_Q
        Q_h = decode(chart_titled(at, f"Q_{h}")["data"][0]["z"])
        np.testing.assert_array_equal(Q_h, Q_all[:, 2 * h : 2 * h + 2])
    for h in range(4):
        A_h = decode(chart_titled(at, f"A_{h}")["data"][0]["z"])
        np.testing.assert_allclose(A_h.sum(axis=1), 1.0, atol=1e-5)
    assert "One head or several" in page_text(at)


def test_multi_head_with_one_head_says_how_to_compare():
    at = run_app("multi-head", lang="zh", n_heads=1)
    assert not at.exception
    assert any("2 个或更多的头" in i.value for i in at.info)


def test_masks_page_pads_the_batch_and_zeroes_masked_weights():
    at = run_app("masks", lang="en")
    assert not at.exception
    assert "X is [3 × 5 × 8]" in page_text(at)  # lengths 5, 3, 1 padded to 5
    at.selectbox(key="batch_sentence").set_value(1).run()
    A = decode(chart_titled(at, "A")["data"][0]["z"])  # masked cells are NaN (drawn grey)
    assert np.isnan(A[:, 3:]).all()  # keys 3, 4 are padding
    assert np.isnan(A[0, 1:]).all()  # causal: token 0 sees only itself
    np.testing.assert_allclose(np.nansum(A, axis=1), 1.0, atol=1e-5)
    wrong = decode(chart_titled(at, "Wrong")["data"][0]["z"])
    assert np.nansum(wrong, axis=1)[0] < 0.99  # masking after the softmax loses weight


def test_an_empty_sentence_in_the_batch_gives_zero_rows_not_nan():
    at = run_app("masks", lang="zh")
    at.toggle(key="batch_empty").set_value(True).run()
    at.selectbox(key="batch_sentence").set_value(3).run()
    assert not at.exception
    assert any("没有真实 token" in w.value for w in at.warning)
    text = np.asarray(chart_titled(at, "A")["data"][1]["text"], dtype=object)
    assert (text == "0").all()  # every cell masked, every weight exactly 0


def test_scaling_page_measures_variance_close_to_d_k():
    import re

    at = run_app("scaling", lang="en")
    assert not at.exception
    for d_k in (64, 512):
        at.select_slider(key="sc_d_k").set_value(d_k).run()
        message = at.success[0].value
        raw, scaled = (float(v) for v in re.findall(r"= ([0-9.]+) \(theory", message))
        assert abs(raw - d_k) < 5 * d_k * (3 / 20000) ** 0.5  # five standard errors
        assert abs(scaled - 1) < 5 * (3 / 20000) ** 0.5
    grad = chart_titled(at, "mean size of the softmax gradient")["data"]
    without, with_scaling = (decode(trace["y"]) for trace in grad)
    assert without[-1] < with_scaling[-1] / 3  # d_k = 512: the unscaled gradient has vanished


def test_mistakes_page_shows_each_wrong_result_and_its_check():
    at = run_app("mistakes", lang="en")
    assert not at.exception
    wrong = decode(chart_titled(at, "Wrong: softmax(S, axis=0)")["data"][0]["z"])
    np.testing.assert_allclose(wrong.sum(axis=0), 1.0, atol=1e-5)
    assert np.abs(wrong.sum(axis=1) - 1).max() > 0.01
    text = page_text(at)  # the checks' findings, in neutral panels (tests/app/test_panels.py)
    assert "Q [5, 4] @ K [5, 4]: inner dimensions 4 and 5 differ" in text
    assert "concat [5, 16] @ W_O [8, 8]" in text  # d_v mixed up with d_k
    order = decode(chart_titled(at, "Wrong: mask(softmax(S))")["data"][0]["z"])
    assert np.nansum(order, axis=1)[0] < 0.99


def test_a_missing_transpose_that_happens_to_fit_is_flagged_in_chinese():
    at = run_app("mistakes", lang="zh", sentence="a b c d")  # n = d_k = 4
    assert not at.exception
    assert "n = d_k = 4" in page_text(at)


def test_cost_page_training_pass_equals_incremental_decoding():
    at = run_app("cost", lang="en", sentence="one two three four five six")
    assert not at.exception
    message = next(s.value for s in at.success if "Largest" in s.value)
    assert float(message.rsplit(":", 1)[1]) < 1e-12
    assert "5 sequential steps" in page_text(at)


def test_cost_page_measures_with_progress_and_fits_exponents(monkeypatch):
    import re

    import measure.cost

    monkeypatch.setattr(measure.cost, "LOOP_MAX_N", 128)
    at = run_app("cost", lang="en")
    at.button(key="co_measure").click()
    at.run(timeout=300)
    assert not at.exception
    fit = next(s.value for s in at.success if "Fitted growth" in s.value)
    _, memory_exp, _ = (float(v) for v in re.findall(r"n\^([0-9]+\.[0-9]+)", fit))
    assert 1.3 < memory_exp < 2.3  # keeping A makes memory quadratic (counted, not timed)
    # how the times grow is wall-clock: bench/classroom.py's measure storm prints the exponents
    spec = chart_titled(at, "seconds per pass")
    for line in spec["data"]:
        y = decode(line["y"]).astype(float)
        assert np.all(y[np.isfinite(y)] > 0) and np.isfinite(y).sum() >= 2, line["name"]
    assert "shared by 1 learner" in page_text(at)  # one press: this session's own measurement


def test_flash_page_tiles_reproduce_the_full_result():
    at = run_app("flash", lang="en", sentence="a b c d e f g")
    assert not at.exception
    message = next(s.value for s in at.success if "tiled" in s.value)
    assert float(message.split("=")[1].split()[0]) <= 1e-12
    at.slider(key="fl_tile").set_value(3).run()
    at.slider(key="fl_step").set_value(1).run()  # the first tile: rows 0-2, keys 0-2
    state = at.dataframe[0].value
    assert list(state.iloc[:, 0]) == ["0 · a", "1 · b", "2 · c"]
    memory = chart_titled(run_until(at, has_chart("Peak memory")), "Peak memory")["data"]
    full, tiled = (decode(trace["y"]) for trace in memory)
    assert full[-1] > 8 * tiled[-1]  # n = 2048: n x n against tiles


def test_cost_page_without_a_gpu_shows_the_recorded_gpu_comparison():
    import json

    import core
    from measure.cost import RECORDED_GPU

    if core.active_backend().name == "cupy":
        pytest.skip("this machine has a GPU: the page measures it instead")
    recorded = json.loads(RECORDED_GPU.read_text(encoding="utf-8"))["cost_page"]
    for lang, no_gpu, ratio_column in (
        ("en", "no usable GPU", "GPU speed-up"),
        ("zh", "没有可用的 GPU", "GPU 加速倍数"),
    ):
        at = run_app("cost", lang=lang)
        assert not at.exception
        assert no_gpu in page_text(at)
        table = next(d.value for d in at.dataframe if ratio_column in d.value.columns)
        assert list(table["n"]) == recorded["n"]
        expected = [f"{cpu / gpu:.1f}×" for cpu, gpu in zip(recorded["attention"], recorded["gpu"])]
        assert list(table[ratio_column]) == expected
    first_win = next(
        n
        for i, n in enumerate(recorded["n"])
        if all(g < c for g, c in zip(recorded["gpu"][i:], recorded["attention"][i:]))
    )
    assert f"from n = {first_win} on" in page_text(run_app("cost", lang="en"))


def test_cost_page_with_a_gpu_times_both_backends_and_names_the_crossover(monkeypatch, gpu_app):
    import measure.cost
    from measure.queue import MEASUREMENTS

    monkeypatch.setattr(measure.cost, "GPU_COST_NS", (256, 512, 1024))
    monkeypatch.setattr(measure.cost, "LOOP_MAX_N", 64)
    # measured in this process: a child process would not see the stand-in GPU
    monkeypatch.setattr(
        MEASUREMENTS,
        "run",
        lambda job, args, on_step: measure.cost.measure(**args, on_step=on_step),
    )
    at = run_app("cost", lang="en")
    assert "no usable GPU" not in page_text(at)
    at.button(key="co_measure").click()
    at.run(timeout=300)
    assert not at.exception
    spec = chart_titled(at, "seconds per pass")
    lines = {trace["name"]: decode(trace["y"]) for trace in spec["data"]}
    cpu, gpu = lines["attention on the CPU (NumPy)"], lines["attention on the GPU (CuPy)"]
    assert list(decode(spec["data"][0]["x"])) == [256, 512, 1024]
    assert np.all(np.isfinite(cpu)) and np.all(np.isfinite(gpu)) and np.all(gpu > 0)
    wins = gpu < cpu
    first = next((n for i, n in enumerate([256, 512, 1024]) if wins[i:].all()), None)
    expected = "not faster" if first is None else f"faster than the CPU from n = {first} on"
    assert expected in page_text(at)


def test_the_walkthrough_says_which_backend_computed_it(gpu_app):
    at = run_app(lang="en", sentence="which backend computed these numbers")
    assert not at.exception
    line = next(c.value for c in at.caption if "Computed with" in c.value)
    assert "NumPy (CPU)" in line and f"shorter than {gpu_app} tokens" in line
    at = run_app(lang="zh", sentence="which backend computed these numbers")
    line = next(c.value for c in at.caption if "计算后端" in c.value)
    assert "NumPy（CPU）" in line and f"少于 {gpu_app} 个 token" in line
