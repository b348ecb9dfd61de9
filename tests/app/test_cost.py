"""The cost page: path lengths, the measured and recorded growth (with and without a GPU), and
training in one pass against decoding one token at a time."""

import json
import math
import re

import numpy as np
import pytest

from tests.support.app import (
    chart_range,
    chart_titled,
    charts,
    decode,
    grids,
    page_text,
    run_app,
    slider,
)
from tests.support.numbers import (
    app_oracle,
    assert_cells,
    chart_keyed,
    numbers,
    power_of_ten_value,
)
from tests.support.oracles import simulated_cnn_layers


def decoded_token_by_token(o):
    """Generation's arithmetic written out, independent of core: at step t the new row x_t
    makes q_t, k_t and v_t; k_t and v_t are appended to each head's cache, and q_t attends over
    the cached rows 0 … t alone (math.exp, one score at a time). Returns the output rows and
    each head's K and V caches."""
    W, h = o.W, o.n_heads
    d_k, d_v = W.W_Q.shape[1] // h, W.W_V.shape[1] // h
    K_cache, V_cache, rows = [[] for _ in range(h)], [[] for _ in range(h)], []
    for x in o.X:
        heads = []
        for head in range(h):
            q = x @ W.W_Q[:, head * d_k : (head + 1) * d_k]
            K_cache[head].append(x @ W.W_K[:, head * d_k : (head + 1) * d_k])
            V_cache[head].append(x @ W.W_V[:, head * d_v : (head + 1) * d_v])
            s = [float(q @ k) / math.sqrt(d_k) for k in K_cache[head]]
            e = [math.exp(v - max(s)) for v in s]
            a = [v / sum(e) for v in e]
            heads.append(sum(w * v for w, v in zip(a, V_cache[head], strict=True)))
        rows.append(np.concatenate(heads) @ W.W_O)
    return np.array(rows), [np.array(K) for K in K_cache], [np.array(V) for V in V_cache]


@pytest.mark.parametrize(
    ("lang", "query", "oracle"),
    [
        ("en", {"decimals": 3}, {}),
        ("zh", {"mask": "causal", "d_model": 12, "n_heads": 3, "pe": "false", "seed": 7},
         {"d_model": 12, "n_heads": 3, "positional": False, "seed": 7}),
    ],
)  # fmt: skip
def test_cost_page_training_rows_are_causal_attention_and_decoding_rows_the_token_loop(
    lang, query, oracle
):
    """The training heatmap prints output = concat_h(softmax(mask(Q_h K_hᵀ/√d_k)) V_h) W_O under
    a causal mask (the per-head oracle), the decoding heatmap prints the rows a per-token loop
    over a K/V cache gives (written in this test), and the largest difference the page reports
    between them is as small as the two independent computations say it must be."""
    sentence = "one two three four five six"
    at = run_app("cost", lang=lang, sentence=sentence, **query)
    assert not at.exception
    decimals = query.get("decimals", 2)
    causal = app_oracle(sentence, causal=True, **oracle)
    decoded, _, _ = decoded_token_by_token(causal)
    title = {"en": ("Training", "Inference"), "zh": ("训练", "推理")}[lang]
    full, incremental = chart_keyed(at, "co_full"), chart_keyed(at, "co_incr")
    assert full["layout"]["title"]["text"].startswith(title[0])
    assert incremental["layout"]["title"]["text"].startswith(title[1])
    assert_cells(full, causal.output, decimals, "training: one pass with a causal mask")
    assert_cells(incremental, decoded, decimals, "inference: token by token")
    # the rows differ from attention without the mask: the test tells the two apart
    unmasked = app_oracle(sentence, causal=False, **oracle).output
    assert not np.allclose(decode(full["data"][0]["z"]), unmasked, atol=1e-3)
    message = next(s.value for s in at.success if "10⁻" in s.value or s.value.endswith(" 0"))
    largest = power_of_ten_value(message.rsplit(":", 1)[-1].rsplit("：", 1)[-1])
    assert 0 <= largest <= max(1e-12, 10 * np.abs(causal.output - decoded).max())


@pytest.mark.parametrize(("lang", "base"), [("en", 0), ("zh", 1)])
def test_cost_page_kv_cache_after_each_step_holds_rows_0_to_t(lang, base):
    """At every step t of the player, the K and V cache heatmaps print head 0's k_j = x_j W_K and
    v_j = x_j W_V for j = 0 … t, the rows the test's own decoding loop cached, and the caption
    counts t + 1 of n rows."""
    sentence = "the cat sat on the mat"
    at = run_app("cost", lang=lang, sentence=sentence, base=base)
    o = app_oracle(sentence)
    _, K_cache, V_cache = decoded_token_by_token(o)
    np.testing.assert_allclose(K_cache[0], o.K[0], atol=1e-12)  # the two oracles agree
    n = len(o.tokens)
    for step in range(1, n + 1):
        if step > 1:
            at.slider(key="co_step").set_value(step).run()
        assert not at.exception
        for name, cache in (("K", K_cache[0]), ("V", V_cache[0])):
            spec = chart_keyed(at, f"co_cache_{name}")
            assert_cells(spec, cache[:step], 2, f"{name} cache after step {step}")
            assert spec["layout"]["yaxis"]["ticktext"] == o.tokens[:step]
        caption = next(c.value for c in at.caption if "K" in c.value and "V" in c.value)
        assert numbers(caption) == [step, base, step, n], caption


def test_cost_page_measures_with_progress_and_fits_exponents(monkeypatch):
    import measure.cost

    monkeypatch.setattr(measure.cost, "LOOP_MAX_N", 128)
    at = run_app("cost", lang="en")
    at.button(key="co_measure").click()
    at.run(timeout=300)
    assert not at.exception
    spec = chart_titled(at, "seconds per pass")
    for line in spec["data"]:
        y = decode(line["y"]).astype(float)
        assert np.all(y[np.isfinite(y)] > 0) and np.isfinite(y).sum() >= 2, line["name"]
    assert "shared by 1 learner" in page_text(at)  # one press: this session's own measurement
    fits = [s.value for s in at.success if "Fitted growth" in s.value]
    if not fits:  # the machine was too busy (bench/classroom.py's storm): said, not printed
        assert any("too busy for a reliable growth figure" in w.value for w in at.warning)
        assert at.button(key="co_measure_again")
        return
    # the printed exponents are the slopes of the charts' own points over n = 512 … 4096,
    # recomputed here; memory is counted, not timed: keeping A makes it quadratic
    time_exp, memory_exp, rnn_exp = (float(v) for v in re.findall(r"n\^([0-9]+\.[0-9]+)", fits[0]))
    lines = {trace["name"]: decode(trace["y"]).astype(float) for trace in spec["data"]}
    ns = decode(spec["data"][0]["x"]).astype(float)
    big = ns >= 512
    memory = decode(chart_titled(at, "peak memory")["data"][0]["y"]).astype(float)
    for printed, values in (
        (time_exp, lines["attention on the CPU (NumPy)"]),
        (rnn_exp, lines["RNN chain (sequential)"]),
        (memory_exp, memory),
    ):
        slope = np.polyfit(np.log(ns[big]), np.log(values[big]), 1)[0]
        assert printed == pytest.approx(slope, abs=0.006)
    assert 1.3 < memory_exp < 2.3


def test_cost_page_says_the_machine_was_too_busy_and_offers_to_measure_again(monkeypatch):
    """A result whose sweeps disagree (measure/cost.py's fitted_growth): the page gives no
    exponent, says why with the sweeps' range and R², in both languages, and its button
    measures again rather than joining the busy result."""
    import measure.cost
    from measure.queue import QUEUE

    ns = np.array(measure.cost.COST_NS, dtype=float)
    clean = 2e-9 * ns**2 + 2e-5
    sweeps = [clean, clean * 1.01, clean + 0.08 * (ns >= 512), clean * 1.02, clean]
    result = {
        "n": list(measure.cost.COST_NS),
        "attention": list(np.min(sweeps, axis=0)),
        "memory": list(3e-6 * ns**2),
        "rnn": list(1e-6 * ns),
        "loop": [float("nan")] * len(ns),
        "gpu": [float("nan")] * len(ns),
        "sweeps": [list(s) for s in sweeps],
    }
    result["fit"] = measure.cost.fitted_growth(result, 12)
    result["busy"] = True
    runs = []
    monkeypatch.setattr(QUEUE, "run", lambda job, args, on_step: runs.append(job) or result)
    low, high = min(result["fit"]["sweeps"]), max(result["fit"]["sweeps"])
    for lang, busy in (("en", "too busy for a reliable growth figure"), ("zh", "服务器太忙")):
        at = run_app("cost", lang=lang, d_model=12)
        at.button(key="co_measure").click()
        at.run(timeout=60)
        assert not at.exception
        warning = next(w.value for w in at.warning if busy in w.value)
        assert numbers(warning)[:2] == pytest.approx([low, high], abs=0.006)
        assert not [s.value for s in at.success if "n^" in s.value]  # no exponent printed
        pressed = len(runs)
        at.button(key="co_measure_again").click()
        at.run(timeout=60)
        assert len(runs) == pressed + 1  # measured again, not joined


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
        table = next(d for d in grids(at) if ratio_column in d.columns)
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
    from measure.queue import QUEUE

    monkeypatch.setattr(measure.cost, "GPU_COST_NS", (256, 512, 1024))
    monkeypatch.setattr(measure.cost, "LOOP_MAX_N", 64)
    # measured in this process: a child process would not see the stand-in GPU
    monkeypatch.setattr(
        QUEUE,
        "run",
        lambda job, args, on_step: measure.cost.measure_cost(**args, on_step=on_step),
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


def test_cost_page_shows_the_recorded_result_before_anyone_measures():
    from measure.cost import RECORDED_COST

    recorded = json.loads(RECORDED_COST.read_text(encoding="utf-8"))["result"]
    for lang, label in (
        ("en", "Recorded on this app's reference machine"),
        ("zh", "本应用的参考机器上记录的结果"),
    ):
        at = run_app("cost", lang=lang, d_model=16)  # settings nobody measured in this process
        assert not at.exception
        assert any(label in i.value for i in at.info)
        spec = chart_titled(at, "seconds per pass" if lang == "en" else "每次计算的秒数")
        attention = decode(spec["data"][0]["y"]).astype(float)
        np.testing.assert_allclose(attention, recorded["attention"], rtol=1e-12)


def test_cost_page_path_lengths_follow_n_and_k():
    at = run_app("cost", lang="en", sentence="one two three four five six")
    table = grids(at)[0]
    assert list(table["sequential steps (layers)"]) == [1, simulated_cnn_layers(6, 3), 5]
    at.number_input(key="co_paths_n").set_value(100).run()
    at.number_input(key="co_paths_k").set_value(5).run()
    table = grids(at)[0]
    assert list(table["sequential steps (layers)"]) == [1, simulated_cnn_layers(100, 5), 99]
    spec = chart_titled(at, "Steps")
    xs = [int(x) for x in decode(spec["data"][0]["x"])]
    lines = {trace["name"]: [int(y) for y in decode(trace["y"])] for trace in spec["data"]}
    assert 100 in xs and xs == sorted(xs)
    assert lines["CNN, kernel k = 5"] == [simulated_cnn_layers(x, 5) for x in xs]
    assert lines["RNN"] == [x - 1 for x in xs] and set(lines["self-attention"]) == {1}


def test_cost_page_training_targets_are_the_inputs_shifted_by_one():
    at = run_app("cost", lang="en", sentence="the cat sat down", base=1)
    table = next(d for d in grids(at) if "target (next token)" in d.columns)
    assert list(table["row"]) == ["1", "2", "3"]
    assert list(table["input"]) == ["the", "cat", "sat"]
    assert list(table["target (next token)"]) == ["cat", "sat", "down"]
    assert list(table["what the row sees (causal mask)"]) == ["the", "the cat", "the cat sat"]
    assert "teacher forcing" in page_text(at)
    assert chart_range(at, "co_full") == chart_range(at, "co_incr")
    assert slider(at, "co_step").value == 1
    at.slider(key="co_step").set_value(3).run()
    text = page_text(at)
    assert "Step 3: the new input row is “sat”, the token the model produced at step 2." in text
    assert "K and V caches after step 3 (head 1): 3 of 4 rows" in text
    assert len(decode(chart_titled(at, "K cache")["data"][0]["z"])) == 3


def test_cost_page_chinese_charts_say_huancun_and_teacher_forcing():
    at = run_app("cost", lang="zh")
    titles = [spec["layout"]["title"]["text"] for spec in charts(at)]
    assert "K 缓存" in titles and "V 缓存" in titles
    assert not any("cache" in title for title in titles)
    assert "教师强制" in page_text(at)
