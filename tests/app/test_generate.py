"""The generate page in AppTest: what it prints and draws against the model run here in the test
(its own forward pass, softmax and argmax), the rules' controls and the URL, writing with Next,
the same seed writing the same text, and bad input kept in the box with a message. Every figure
the page prints about the model (the cache's size, the weight on <bos>, RoPE's and QK-norm's
numbers, the layer's sizes, the tied embedding's megabytes) is read back against the test's own
computation from the model's config and arrays, never against the page's helpers."""

import math
import re

import numpy as np
import pytest

from tests.support.app import charts, decode, grids, page_text, room_opened, run_app
from tests.support.numbers import (
    assert_cells,
    assert_printed,
    chart_keyed,
    close,
    numbers,
    power_of_ten_value,
)

EXAMPLE = {"en": "The cat sat on the", "zh": "今天天气很好，我们一起去"}
BYTES = 4  # the model's numbers are float32


def _bars(at) -> dict:
    return next(c for c in charts(at) if "10" in str(c["layout"]["title"]["text"]))


def _softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum()


def _line(at, *starts) -> str:
    """The printed line that starts with one of ``starts``, without Markdown's escapes and with
    thousands written without commas (262,144 reads as one number)."""
    for line in page_text(at).replace("\\", "").splitlines():
        if line.startswith(starts):
            return re.sub(r"(?<=\d),(?=\d{3}\b)", "", line)
    raise AssertionError(f"no line starting with {starts}")


def _greedy(gemma, prompt: str, count: int):
    """The prompt's pass, then ``count`` greedy tokens, each through the cache: every trace."""
    traces = [gemma.forward(gemma.encode(prompt))]
    for _ in range(count):
        traces.append(gemma.forward([int(traces[-1].logits[-1].argmax())], traces[-1].cache))
    return traces


def _text_so_far(at) -> str:
    line = next(m.value for m in at.markdown if m.value.startswith(("**Text so far:**", "**目前")))
    text = re.sub(r"^\*\*[^*]+\*\*[:：]?", "", line)  # the label, in either language
    return re.sub(r"<[^>]+>", "", text).replace("\\", "").strip()  # the newest token's <b>


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_bars_are_the_models_own_probabilities(gemma, lang):
    at = run_app("generate", lang=lang)
    assert not at.exception
    prompt = at.text_area(key="gen_prompt").value
    logits = gemma.forward(gemma.encode(prompt)).logits[-1].astype(np.float64)
    p = _softmax(logits)
    top = np.argsort(-p)[:10]
    y = np.array(_bars(at)["data"][0]["y"])
    np.testing.assert_allclose(y, p[top], atol=1e-5)
    labels = _bars(at)["data"][0]["x"]
    assert labels[0] == gemma.decode([int(top[0])]).replace(" ", "␣")  # the most likely first,
    # as text, its leading space seen (␣table)


def test_temperature_and_top_k_reshape_the_bars(gemma):
    at = run_app("generate", lang="en", gen_t="0.5", gen_k="3")
    logits = gemma.forward(gemma.encode("The cat sat on the")).logits[-1].astype(np.float64)
    p = _softmax(logits / 0.5)
    y = np.array(_bars(at)["data"][0]["y"])
    np.testing.assert_allclose(y, np.sort(p)[::-1][:10], atol=1e-5)
    colours = _bars(at)["data"][0]["marker"]["color"]
    assert len(set(colours[:3])) == 1 and set(colours[3:]) - {
        colours[0]
    }  # three kept, the rest cut
    assert "3 of 262144 tokens kept" in page_text(at).replace(",", "")


def test_next_appends_the_greedy_token_through_the_cache(gemma):
    at = run_app("generate", lang="en")
    ids = gemma.encode("The cat sat on the")
    expected = []
    trace = gemma.forward(ids)
    for _ in range(3):
        expected.append(int(trace.logits[-1].argmax()))
        trace = gemma.forward([expected[-1]], trace.cache)
    for _ in range(3):
        at.button(key="gen_next").click().run()
    assert not at.exception
    assert _text_so_far(at) == "The cat sat on the" + gemma.decode(expected)
    assert at.slider(key="gen_written").value == 3
    assert "The cache holds 9 positions" in page_text(at)  # <bos>, 5 pieces, 3 written


def test_a_link_opens_with_tokens_written_and_the_same_seed_writes_the_same_text():
    link = {"lang": "zh", "gen_mode": "sample", "gen_seed": "11", "written": "6"}
    first, again = run_app("generate", **link), run_app("generate", **link)
    other = run_app("generate", **{**link, "gen_seed": "12"})
    assert _text_so_far(first) == _text_so_far(again)
    assert _text_so_far(first) != _text_so_far(other)
    assert _text_so_far(first).startswith("今天天气很好，我们一起去")


def test_training_rows_match_one_pass_and_one_at_a_time(gemma):
    """Each row's p(target) both ways, the loss over the rows and the largest logit difference
    between one pass and one position at a time, from the test's own passes."""
    at = run_app("generate", lang="en", gen_prompt="Attention is all you need.")
    ids = gemma.encode("Attention is all you need.")
    logits = gemma.forward(ids).logits.astype(np.float64)
    p = [_softmax(row)[target] for row, target in zip(logits[:-1], ids[1:])]
    table = next(d for d in grids(at) if "p(target), one pass" in d.columns)

    def column(name):
        return np.array([power_of_ten_value(cell) for cell in table[name]])  # 5 × 10⁻⁵

    np.testing.assert_allclose(column("p(target), one pass"), p, atol=1e-4)
    np.testing.assert_allclose(column("p(target), one at a time"), p, atol=1e-3)
    loss = float(-np.mean(np.log(p)))
    cached, trace = [], None
    for i in ids[:-1]:  # the same rows one position at a time, through the cache
        trace = gemma.forward([i], None if trace is None else trace.cache)
        cached.append(trace.logits[0])
    diff = float(np.abs(np.asarray(cached, np.float64) - logits[:-1]).max())
    line = _line(at, "Loss over these")
    n, shown_loss = numbers(line)[:2]
    assert n == len(p) and close(shown_loss, loss, 3)
    shown_diff = power_of_ten_value(line.rsplit(": ", 1)[1].rstrip("."))  # 3.6 × 10⁻⁵
    assert shown_diff == pytest.approx(diff, rel=0.05)  # two significant digits


def test_the_attention_map_has_exact_zeros_above_the_diagonal(gemma):
    at = run_app("generate", lang="en", gen_layer="0", gen_head="2", base="0")
    ids = gemma.encode("The cat sat on the")
    A = gemma.forward(ids).A[0][2]
    spec = next(
        c for c in charts(at) if str(c["layout"]["title"]["text"]).startswith("Attention in")
    )
    z = decode(spec["data"][0]["z"])
    np.testing.assert_allclose(np.nan_to_num(z, nan=0.0), A, atol=1e-4)
    assert "Layer 0 is local" in page_text(at)


@pytest.mark.parametrize(
    ("prompt", "says"),
    [
        ("   ", "Type a prompt"),
        ("x" * 2001, "2001 characters"),
        ("a" + "\x00\x1b" + "b", "2 control characters"),
        ("<bos> hello <eos>", "<bos>, <eos> typed in the prompt are read as ordinary text"),
        ("好 " * 300, "the page reads at most 256"),
    ],
)
def test_bad_input_is_explained_and_the_text_stays(prompt, says):
    at = run_app("generate", lang="en")
    at.text_area(key="gen_prompt").input(prompt).run()
    assert not at.exception
    assert says in page_text(at).replace("\\", "")
    assert at.text_area(key="gen_prompt").value == prompt


def test_chinese_bad_input_is_said_in_chinese():
    at = run_app("generate", lang="zh")
    at.text_area(key="gen_prompt").input("").run()
    assert "请输入一段提示词" in page_text(at)


def test_a_teacher_asks_the_class_which_token_comes_next(gemma):
    import ui.room.connection as room

    _, code, key = room_opened()
    teacher = run_app("generate", room=code, key=key, lang="en")
    assert teacher.selectbox(key="q_kind_generate").value == "next_token"
    teacher.button(key="room_ask").click().run()
    question = room.rooms().get(code)["question"]
    logits = gemma.forward(gemma.encode("The cat sat on the")).logits[-1].astype(np.float64)
    p = _softmax(logits)
    top = np.argsort(-p)[:4]
    seen = [gemma.decode([i]).replace(" ", "␣") for i in top]  # as the bars label them: ␣table
    assert [label for label, _ in question["choices"]][question["answer"]] == seen[0]
    assert sorted(label for label, _ in question["choices"]) == sorted(seen)
    assert question["params"]["text"].endswith("sat on the")
    student = run_app(room=code, lang="zh")
    assert not student.exception
    assert "模型在“" in page_text(student) and "后面接着写哪个 token" in page_text(student)
    teacher.button(key="room_reveal").click().run()
    shown = " ".join(c.value for c in teacher.code)
    assert f"{seen[0]}: p = {p[top[0]]:.3f}" in shown  # the model's probabilities


def test_numbering_from_one_reaches_layers_and_positions():
    at = run_app("generate", lang="zh", base="1", written="2")
    assert not at.exception
    assert at.selectbox(key="gen_layer").options[:2] == ["1", "2"]
    positions = next(d for d in grids(at) if "位置" in d.columns).iloc[:, 0]
    assert list(positions[:2]) == ["1", "2"]
    text = page_text(at)
    assert "层 18 是全局层" in text and "进入层 1 时的向量" in text


LONG = "The quick brown fox jumps over the lazy dog. " * 3  # a cache of over a megabyte
_SIZE = re.compile(r"(\d+(?:\.\d+)?) (KiB|MiB)")  # binary units, named so (never "KB")


def _sizes(line: str) -> list[tuple[float, float]]:
    """Each size a line prints ('288 KiB', '1.05 MiB') in bytes, with half its last printed
    place."""
    sizes = []
    for value, unit in _SIZE.findall(line):
        scale = 2**10 if unit == "KiB" else 2**20
        sizes.append((float(value) * scale, 0.5 * 10.0 ** -len(value.partition(".")[2]) * scale))
    return sizes


@pytest.mark.parametrize(
    ("lang", "prompt", "written"),
    [("en", EXAMPLE["en"], 2), ("zh", EXAMPLE["zh"], 2), ("en", LONG, 0)],
    ids=["en-KiB", "zh-KiB", "en-MiB"],
)
def test_the_cache_caption_is_the_caches_own_size(gemma, lang, prompt, written):
    """positions × layers × K and V × the K/V heads' numbers × 4 bytes, and the size with a K/V
    head for every query head, n_heads / n_kv_heads times as much: each figure from the config,
    the bytes also the test's own cache's."""
    at = run_app("generate", lang=lang, gen_prompt=prompt, written=written)
    c = gemma.config
    positions = len(gemma.encode(prompt)) + written  # <bos>, the prompt's pieces, the written
    size = positions * c.n_layers * 2 * c.n_kv_heads * c.head_dim * BYTES
    each = positions * c.n_layers * 2 * c.n_heads * c.head_dim * BYTES
    cache = _greedy(gemma, prompt, written)[-1].cache
    assert size == sum(K.nbytes + V.nbytes for K, V in zip(cache.K, cache.V, strict=True))
    line = _line(at, "The cache holds", "缓存里有")
    exact = {"en": f" = {size} bytes = ", "zh": f" = {size} 字节 = "}[lang]  # to check by hand
    assert exact in line, line  # (_line drops the thousands' commas)
    line = line.replace(exact, " = ")
    sizes = _sizes(line)
    assert len(sizes) == 2, line
    for (read, half), value in zip(sizes, [size, each], strict=True):
        assert abs(read - value) <= half * (1 + 1e-9), f"{line}: {value} bytes"
    factor = each // size
    figures = [positions, c.n_layers, c.n_kv_heads * c.head_dim, BYTES, c.n_heads]
    figures += {"en": [1, factor], "zh": [c.n_kv_heads]}[lang]  # en: 1/4; zh: 四分之一
    assert numbers(_SIZE.sub("", line)) == figures
    assert lang == "en" or (factor == 4 and "四分之一" in line), line  # zh: "a quarter of"


@pytest.mark.parametrize(("lang", "layer", "local"), [("en", 17, False), ("zh", 3, True)])
def test_the_weight_on_bos_is_each_heads_mean_over_the_later_queries(gemma, lang, layer, local):
    """Each head's weight on <bos>, averaged over the queries after it (the first can read only
    <bos>), from the test's own pass; and the map's caption names the layer and, on a local one,
    the window."""
    at = run_app("generate", lang=lang, gen_layer=layer, base="0")
    c = gemma.config
    A = gemma.forward(gemma.encode(EXAMPLE[lang])).A[layer]  # [heads, n, n]
    on_bos = A[:, 1:, 0].mean(axis=1)
    line = _line(at, f"Per head of layer {layer}", f"层 {layer} 各个头")
    printed = numbers(line)
    assert "<bos>" in line and printed[:2] == [layer, 0]  # <bos> at position 0
    assert printed[2::2] == list(range(c.n_heads))
    assert_printed(printed[3::2], on_bos, 2, "weight on <bos>")
    caption = _line(at, f"Layer {layer} is", f"层 {layer} 是")
    every = c.global_every - 1  # the local layers before each global one (Gemma: 5)
    assert numbers(caption) == ([layer, c.window, every] if local else [layer, every, c.window])
    assert ("is local" in caption or "是局部层" in caption) == local, caption


def _rms_norm(x, weight, eps: float):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * weight


def _rotated(x, position: float, base: float = 10_000.0):
    """RoPE by hand: each pair (x_i, x_{i + d/2}) turned by the angle position / base^(2i/d)."""
    half = x.size // 2
    angle = position / base ** (2 * np.arange(half) / x.size)
    a, b = x[:half], x[half:]
    return np.concatenate(
        [a * np.cos(angle) - b * np.sin(angle), b * np.cos(angle) + a * np.sin(angle)]
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_rope_and_qk_norm_figures_are_layer_0s_own(gemma, lang):
    """Layer 0 (local, RoPE base 10 000), head 0, in float64 here: the last piece's query and the
    piece before's key, QK-normed and rotated by their positions, score the printed q·k/16, also
    at the printed positions moved along; the last piece's row entering layer 0 has the printed
    mean and RMS, and its query the printed lengths before and after QK-norm."""
    at = run_app("generate", lang=lang, base="0")
    c, w = gemma.config, gemma.layers[0]
    W = {name: getattr(w, name).astype(np.float64) for name in ("attn_norm", "W_Q", "W_K")}
    ids = gemma.encode(EXAMPLE[lang])
    x = gemma.E[ids[-2:]].astype(np.float64) * math.sqrt(c.d_model)  # [2, d_model]
    h = _rms_norm(x, W["attn_norm"], c.eps)
    q_raw = (h[1] @ W["W_Q"].T)[: c.head_dim]  # head 0, the last piece
    q = _rms_norm(q_raw, w.q_norm.astype(np.float64), c.eps)
    k = _rms_norm(h[0] @ W["W_K"].T, w.k_norm.astype(np.float64), c.eps)  # the one K/V head

    def score(i, j):
        return _rotated(q, i) @ _rotated(k, j) / math.sqrt(c.head_dim)

    i, j, s1, i2, j2, s2 = numbers(_line(at, "No PE", "输入里不加"))
    assert (i, j) == (len(ids) - 1, len(ids) - 2) and i2 - i == j2 - j > 0
    assert_printed([s1, s2], [score(i, j), score(i2, j2)], 4, "q·k/16, then moved")
    printed = numbers(_line(at, "RMSNorm divides", "RMSNorm 把"))
    assert printed[:2] == [1, 0]  # "stored as 1 + w", layer 0
    assert_printed(printed[2:4], [x[1].mean(), np.sqrt(np.mean(x[1] ** 2))], 3, "mean, RMS")
    assert_printed(printed[4:], [np.linalg.norm(q_raw), np.linalg.norm(q)], 2, "|q|")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_layers_sizes_are_the_models_own(gemma, lang):
    """Multi-query's shapes and factor, the feed-forward's width, the scale √head_dim, and the
    tied embedding's shape and megabytes (vocab × d_model × 4 bytes), from the weights' shapes."""
    at = run_app("generate", lang=lang)
    c, w = gemma.config, gemma.layers[0]
    d, q_width, kv_width = w.W_Q.shape[1], w.W_Q.shape[0], w.W_K.shape[0]  # rows: outputs
    assert w.W_V.shape == w.W_K.shape and gemma.E.itemsize == BYTES
    heads, size = c.n_heads, c.head_dim
    one_in = {"en": [1, q_width // kv_width], "zh": []}[lang]  # en 1/4, zh 四分之一
    mqa = [d, q_width, heads, size, d, kv_width, *one_in, heads, size, q_width, d]
    assert numbers(_line(at, "W_Q is", "W_Q 是")) == mqa
    assert numbers(_line(at, "F = W_down")) == [w.W_gate.shape[0]]
    assert numbers(_line(at, "Scores are divided", "分数除以")) == [size, math.sqrt(size)]
    vocab = len(gemma.tokenizer.vocabulary)
    *shape, mb = numbers(_line(at, "Logits = h", "logit = h"))
    assert shape == [vocab, d, d] and close(mb, vocab * d * BYTES / 2**20, 0)


def _cells(column) -> list[float]:
    return [float(str(cell).replace("−", "-")) for cell in column]


def test_the_next_token_table_is_the_models_logits_under_the_rules(gemma):
    """T = 0.5, top-k 3, two tokens written greedily through the cache: step 2's p, then the ten
    candidates' logit, ÷ T, softmax, kept and renormalised p, and how many of the vocabulary
    are kept, each from the test's own pass and arithmetic."""
    at = run_app("generate", lang="en", gen_t="0.5", gen_k="3", written="2")
    traces = _greedy(gemma, EXAMPLE["en"], 2)

    def rules(logits):  # ÷ T, softmax, the top 3 kept and renormalised
        p = _softmax(logits.astype(np.float64) / 0.5)
        top = np.argsort(-p)
        q = np.zeros_like(p)
        q[top[:3]] = p[top[:3]] / p[top[:3]].sum()
        return p, q, top[:10]

    _, q_then, _ = rules(traces[-2].logits[-1])  # step 2 chose the argmax
    step, p_chosen = numbers(_line(at, "Step 2 chose"))
    assert step == 2 and close(p_chosen, q_then.max(), 3)
    logits = traces[-1].logits[-1].astype(np.float64)
    p, q, top = rules(logits)
    table = next(d for d in grids(at) if "renormalised" in d.columns)
    shown = {
        "logit": (logits, 3),
        "÷ T": (logits / 0.5, 3),
        "softmax": (p, 4),
        "renormalised": (q, 4),
    }
    for name, (values, decimals) in shown.items():
        assert_printed(_cells(table[name]), values[top], decimals, name)
    assert list(table["kept"]) == ["✓"] * 3 + ["—"] * 7
    vocab = len(gemma.tokenizer.vocabulary)
    assert numbers(_line(at, "3 of")) == [3, vocab, 1]  # "…renormalised to sum to 1"
    labels = [e.label for e in at.expander if e.label.startswith("The last position")]
    assert numbers(labels[0].replace(",", "")) == [vocab]


def test_the_cache_table_and_the_new_querys_row_are_the_caches_own(gemma):
    """Two tokens written: the last layer's cache table prints its first three K and V numbers at
    every position, and the new query's row of head 0 its weights over every cached key, as the
    test's own cache and pass hold them."""
    at = run_app("generate", lang="en", written="2", base="0")
    last = _greedy(gemma, EXAMPLE["en"], 2)[-1]
    layer = gemma.config.n_layers - 1
    K, V = last.cache.K[layer][0], last.cache.V[layer][0]  # [positions, head_dim]
    table = next(d for d in grids(at) if "k[0]" in d.columns)
    assert list(table["position"]) == [str(i) for i in range(len(K))]
    for j in range(3):
        assert_printed(_cells(table[f"k[{j}]"]), K[:, j], 2, f"k[{j}]")
        assert_printed(_cells(table[f"v[{j}]"]), V[:, j], 2, f"v[{j}]")
    assert_cells(chart_keyed(at, "gen_row"), last.A[layer][0, -1][None, :], 2, "the new row")


def test_the_pieces_and_the_pieces_limit_are_the_models(gemma):
    """The pieces table's ids are the tokenizer's, and a prompt past the page's limit is told
    how many pieces it makes and how many the model itself reads (its context)."""
    at = run_app("generate", lang="zh")
    table = next(d for d in grids(at) if "词表编号" in list(d.iloc[:, 0]))
    row = table.set_index(table.columns[0]).loc["词表编号"]
    assert list(row) == [str(i) for i in gemma.encode(EXAMPLE["zh"])]
    prompt = "好 " * 300
    at = run_app("generate", lang="en", gen_prompt=prompt)
    line = _line(at, "This prompt makes")
    assert numbers(line) == [len(gemma.encode(prompt)), 256, gemma.config.context]


def test_a_room_follows_the_teacher_onto_generate_and_writes_one_generation(gemma):
    """The teacher's prompt, rules, seed and tokens written are the room's view: each student,
    in either language, shows the teacher's text, and the whole room costs one generation."""
    from ui.room import connection as room
    from ui.work import decoding

    _, code, key = room_opened()
    teacher = run_app("generate", room=code, key=key, lang="en")
    teacher.text_area(key="gen_prompt").set_value("Once upon a time").run()
    teacher.radio(key="gen_mode").set_value("sample").run()
    teacher.number_input(key="gen_seed").set_value(42).run()
    teacher.slider(key="gen_t").set_value(0.7).run()
    for _ in range(3):
        teacher.button(key="gen_next").click().run()
    view = room.rooms().get(code)["view"]
    assert view["page"] == "generate" and view["gen_prompt"] == "Once upon a time"
    assert (view["gen_mode"], view["gen_seed"], view["gen_t"], view["gen_written"]) == (
        "sample", 42, 0.7, 3)  # fmt: skip
    assert decoding.AHEAD.idle(60)  # the teacher's next token, read ahead, is done
    steps_before = decoding._step.builds
    students = [run_app(room=code, lang=lang) for lang in ("zh", "en", "zh")]
    prompt = gemma.encode("Once upon a time")
    rng, trace, written = np.random.default_rng(42), gemma.forward(prompt), []
    for _ in range(3):  # the teacher's rules by hand: T = 0.7, sampled with seed 42
        p = _softmax(trace.logits[-1].astype(np.float64) / 0.7)
        written.append(int(rng.choice(p.size, p=p / p.sum())))
        trace = gemma.forward([written[-1]], trace.cache)
    for student in students:
        assert not student.exception
        assert student.session_state["gen_prompt"] == "Once upon a time"
        assert _text_so_far(student) == "Once upon a time" + gemma.decode(written)
    assert decoding.AHEAD.idle(60)  # and what their pages read ahead: the teacher's, kept
    assert decoding._step.builds == steps_before  # the students wrote nothing again


def test_a_sampled_token_of_tiny_probability_is_said_in_powers_of_ten(gemma):
    """Seed 3 at T = 1 on the Chinese example draws a third token the model gave under 0.001
    (seen at 1400 × 900 as "p = 0.000"): its caption gives it in two significant digits, the
    test's own sampling's q of that token."""
    at = run_app("generate", lang="zh", gen_mode="sample", gen_seed="3", written="3")
    rng, trace, written = np.random.default_rng(3), gemma.forward(gemma.encode(EXAMPLE["zh"])), []
    for _ in range(3):  # by hand: T = 1, sampled with seed 3
        p = _softmax(trace.logits[-1].astype(np.float64))
        written.append(int(rng.choice(p.size, p=p / p.sum())))
        trace = gemma.forward([written[-1]], trace.cache)
    q = p[written[-1]]
    assert q < 1e-3
    line = _line(at, "第 3 步选了")
    assert f"“{gemma.decode([written[-1]])}”" in line, line
    shown = re.search(r"p = (.+?)）", line).group(1)
    assert "×" in shown and close(power_of_ten_value(shown), q, 5), line
