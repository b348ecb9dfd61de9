"""/generate's "how the heads share K and V" (issues 56 and 65): each installed model's real
numbers, read back against this test's own arithmetic from the models' published facts (Gemma 3
270M: 18 layers, 4 query heads over 1 K/V head of 256; SmolLM2-135M: 30 layers, 9 over 3 of 64)
in binary units, named so; which query heads read which K/V head, in one figure whose bands are
the groups (head j in the band of K/V head j // group), each row the test's own pass's weights,
in the layer the test finds where the heads of every group differ most; and the prompt's
positions under each tokenizer (SmolLM2's count from transformers' own ids, the fixture
tests/core/test_smollm2.py reads)."""

import json
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from tests.support.app import charts, decode, grids, page_text, run_app

REFERENCE = json.loads(
    (Path(__file__).parents[1] / "core" / "reference" / "smollm2_135m.json").read_text("utf-8")
)
PROMPT = "今天天气很好，我们一起去"  # the Chinese page's own


def _cache_bytes(n_layers, kv, head_dim, tokens=1) -> int:
    return tokens * 2 * n_layers * kv * head_dim * 4  # K and V, every layer, float32


@pytest.mark.parametrize("base", [1, 0])
def test_each_model_s_three_ways_with_its_real_numbers(gemma, smollm2, base):
    query = {"base": "0"} if base == 0 else {}
    at = run_app("generate", lang="en", gen_prompt=PROMPT, **query)
    assert not at.exception
    kv = next(g for g in grids(at) if "K/V heads" in g.columns)
    rows = list(zip(kv["model"], kv["K/V heads"], kv["cache per token"], kv["at 512 tokens"],
                    kv["share of multi-head's cache"], strict=True))  # fmt: skip
    # binary units, worked out by hand: 2 × 18 × 4 × 256 × 4 = 147,456 bytes = 144 × 1,024
    assert rows == [
        ("Gemma 3 270M", "4", "144 KiB", "72 MiB", "1"),
        ("Gemma 3 270M", "1", "36 KiB", "18 MiB", "1/4"),
        ("SmolLM2-135M", "9", "135 KiB", "67.5 MiB", "1"),  # exact: one decimal, not 67.50
        ("SmolLM2-135M", "3", "45 KiB", "22.5 MiB", "1/3"),
        ("SmolLM2-135M", "1", "15 KiB", "7.5 MiB", "1/9"),
    ]
    assert _cache_bytes(30, 9, 64, 512) == 67.5 * 2**20 and _cache_bytes(18, 4, 256) == 144 * 2**10
    assert list(kv["how K and V are shared"]).count("multi-query (the model's own)") == 1
    assert "grouped-query (the model's own)" in list(kv["how K and V are shared"])
    text = page_text(at)
    assert "1 KiB = 1,024 bytes, 1 MiB = 1,024 KiB = 1,048,576 bytes" in text  # which units
    b = base
    assert (f"SmolLM2-135M: K/V head {b} ← query heads {b}, {b + 1}, {b + 2}; K/V head {b + 1} ←"
            f" query heads {b + 3}, {b + 4}, {b + 5}") in text  # fmt: skip
    assert f"Gemma 3 270M: K/V head {b} ← query heads {b}, {b + 1}, {b + 2}, {b + 3}." in text


def test_the_prompt_cut_by_each_tokenizer(gemma, smollm2):
    at = run_app("generate", lang="zh", gen_prompt=PROMPT)
    assert not at.exception
    gemma_n = len(gemma.encode(PROMPT)) - 1  # its <bos> left out: the text's own pieces
    smol_n = len(REFERENCE["ids"][PROMPT])  # transformers' count
    assert smol_n > gemma_n
    text = page_text(at)
    assert (f"Gemma 3 270M：{gemma_n} 个位置（只算文字本身，不含 <bos>）；"
            f"SmolLM2-135M：{smol_n} 个位置") in text  # fmt: skip
    assert "1 KiB = 1,024 字节" in text
    pieces = next(g for g in grids(at) if list(g.columns) == ["模型", "token"])
    smol = pieces.iloc[1, 1].split(" · ")
    assert len(smol) == smol_n and "E4" in " ".join(smol)  # a byte that is no whole character


def _layer_where_groups_differ(last, group: int) -> int:
    """This test's own: per layer, each group's mean over pairs of its heads of half the L1
    distance between their weights; the layer whose least such group is largest."""
    scores = []
    for rows in last:  # [heads, keys]
        least = np.inf
        for first in range(0, len(rows), group):
            pairs = combinations(range(first, first + group), 2)
            distance = [0.5 * np.abs(rows[a] - rows[b]).sum() for a, b in pairs]
            least = min(least, np.mean(distance))
        scores.append(least)
    return int(np.argmax(scores))


@pytest.mark.parametrize(
    ("fixture", "model", "lang", "prompt"),
    [("smollm2", "smollm2-135m", "en", "The cat sat on the"),
     ("smollm2", "smollm2-135m", "zh", PROMPT),
     ("gemma", "gemma3-270m", "en", "The cat sat on the mat because it was tired")],
)  # fmt: skip
def test_one_figure_puts_each_k_v_heads_readers_in_its_band(request, fixture, model, lang, prompt):
    """One chart (a band stays a band on a phone): row h is query head h's weights for the last
    token in the test's own pass, the rows of K/V head g's band exactly the heads h // group == g,
    the band named once at its right and a line between bands; the layer the test's own choice."""
    from ui.work import model_load

    decoder = request.getfixturevalue(fixture)
    model_load.start(model)
    model_load.model(model)
    at = run_app("generate", lang=lang, model=model, gen_prompt=prompt)
    assert not at.exception
    c = decoder.config
    ids = decoder.encode(prompt)
    last = np.stack([A[:, -1, :] for A in decoder.forward(ids).A]).astype(np.float64)
    layer = _layer_where_groups_differ(last, c.n_heads // c.n_kv_heads)
    title = {"en": f"Layer {layer + 1}: the last token's weights",
             "zh": f"层 {layer + 1}：最后一个 token 的权重"}[lang]  # fmt: skip
    ending = title.split(" ", 2)[-1]  # the title less its layer
    found = [s for s in charts(at) if s["layout"]["title"]["text"].endswith(ending)]
    assert [s["layout"]["title"]["text"] for s in found] == [title]  # one figure, this layer
    spec = found[0]
    z = decode(spec["data"][0]["z"]).astype(float)
    # row h: query head h (to float32's rounding: BLAS adds in another order on one thread than
    # on two, and another pass in the process may hold it to one: 3e-6 on SmolLM2's 30 layers)
    np.testing.assert_allclose(z, last[layer], atol=1e-5)
    group = c.n_heads // c.n_kv_heads
    names = {"en": "K/V {}", "zh": "K/V {}"}[lang]
    bands = [a for a in spec["layout"]["annotations"] if a["text"].startswith("K/V")]
    assert [a["text"] for a in bands] == [names.format(g + 1) for g in range(c.n_kv_heads)]
    for g, band in enumerate(bands):  # centred on exactly the rows of heads h // group == g
        rows = [h for h in range(c.n_heads) if h // group == g]
        assert band["y"] == pytest.approx(np.mean(rows)) and len(rows) == group
    lines = sorted(s["y0"] for s in spec["layout"]["shapes"] if s["y0"] == s["y1"])
    assert lines == [g * group - 0.5 for g in range(1, c.n_kv_heads)]
    row = "query head {} · K/V head {}" if lang == "en" else "查询头 {} · K/V 头 {}"
    assert spec["layout"]["meta"]["labels"][0] == [
        row.format(h + 1, h // group + 1) for h in range(c.n_heads)
    ]
    text = page_text(at)
    assert f"in layer {layer + 1} (of {c.n_layers})" in text or f"层 {layer + 1}（共" in text
