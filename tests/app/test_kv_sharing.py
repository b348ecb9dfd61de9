"""/generate's "how the heads share K and V" (issue 56): each installed model's real numbers,
read back against this test's own arithmetic from the models' published facts (Gemma 3 270M:
18 layers, 4 query heads over 1 K/V head of 256; SmolLM2-135M: 30 layers, 9 over 3 of 64), which
query heads read which K/V head, and the prompt's positions under each tokenizer (SmolLM2's
count from transformers' own ids, the fixture tests/core/test_smollm2.py reads)."""

import json
from pathlib import Path

import numpy as np
import pytest

from tests.support.app import grids, page_text, run_app

REFERENCE = json.loads(
    (Path(__file__).parents[1] / "core" / "reference" / "smollm2_135m.json").read_text("utf-8")
)
PROMPT = "今天天气很好，我们一起去"  # the Chinese page's own


def _kb(n_layers, kv, head_dim) -> str:
    return f"{2 * n_layers * kv * head_dim * 4 / 1024:.0f} KB"


@pytest.mark.parametrize("base", [1, 0])
def test_each_model_s_three_ways_with_its_real_numbers(gemma, smollm2, base):
    query = {"base": "0"} if base == 0 else {}
    at = run_app("generate", lang="en", gen_prompt=PROMPT, **query)
    assert not at.exception
    kv = next(g for g in grids(at) if "K/V heads" in g.columns)
    rows = list(zip(kv["model"], kv["K/V heads"], kv["cache per token"], kv["at 512 tokens"],
                    kv["the cache, of multi-head's"], strict=True))  # fmt: skip
    assert rows == [
        ("Gemma 3 270M", "4", _kb(18, 4, 256), "72.00 MB", "1"),
        ("Gemma 3 270M", "1", _kb(18, 1, 256), "18.00 MB", "1/4"),
        ("SmolLM2-135M", "9", _kb(30, 9, 64), f"{2 * 30 * 9 * 64 * 4 * 512 / 2**20:.2f} MB", "1"),
        ("SmolLM2-135M", "3", _kb(30, 3, 64), f"{2 * 30 * 3 * 64 * 4 * 512 / 2**20:.2f} MB", "1/3"),
        ("SmolLM2-135M", "1", _kb(30, 1, 64), f"{2 * 30 * 1 * 64 * 4 * 512 / 2**20:.2f} MB", "1/9"),
    ]
    assert list(kv["how K and V are shared"]).count("multi-query (the model's own)") == 1
    assert "grouped-query (the model's own)" in list(kv["how K and V are shared"])
    text = page_text(at)
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
    pieces = next(g for g in grids(at) if list(g.columns) == ["模型", "token"])
    smol = pieces.iloc[1, 1].split(" · ")
    assert len(smol) == smol_n and "E4" in " ".join(smol)  # a byte that is no whole character


@pytest.mark.parametrize(
    ("model", "layer", "rows"), [("smollm2-135m", 18, 3), ("gemma3-270m", 5, 1)]
)
def test_the_real_map_puts_each_k_v_heads_readers_in_its_row(gemma, smollm2, model, layer, rows):
    """The chosen layer's query heads, a row per K/V head: each map the test's own pass's A for
    that query head, titled with the K/V head it reads (head j reads K/V head j // group)."""
    from tests.support.app import chart_titled, decode
    from ui.work import model_load

    model_load.start(model)
    model_load.model(model)
    decoder = {"smollm2-135m": smollm2, "gemma3-270m": gemma}[model]
    prompt = "The cat sat on the mat because it was tired"
    at = run_app("generate", lang="en", model=model, gen_prompt=prompt, gen_layer=layer)
    assert not at.exception
    A = decoder.forward(decoder.encode(prompt)).A[layer]  # [query heads, n, n]
    c = decoder.config
    for h in range(c.n_heads):
        spec = chart_titled(at, f"query head {h + 1} · K/V head {h // c.group + 1}")
        z = decode(spec["data"][0]["z"]).astype(float)
        np.testing.assert_allclose(np.nan_to_num(z), np.tril(A[h]), atol=1e-6)
    assert c.n_kv_heads == rows
