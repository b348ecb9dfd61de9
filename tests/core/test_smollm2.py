"""SmolLM2-135M on the app's one decoder (core/pretrained/llama.py, grouped-query attention:
nine query heads share three K/V heads) against transformers' own run of the same GGUF (the
fixture bench/make_smollm2_reference.py recorded), and against independent computations: its
tokenizer's ids, the logits at every position, the greedy text, the first and last layers'
attention, cached decoding against the whole pass, and the grouped heads against a loop that
repeats each K/V head for its query heads."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from core.pretrained.decoder import KVCache, allowed, rms_norm

HERE = Path(__file__).parent / "reference"
REFERENCE = json.loads((HERE / "smollm2_135m.json").read_text(encoding="utf-8"))
ATTENTION = np.load(HERE / "smollm2_135m_attention.npz")


def test_its_facts_are_grouped_query_attention(smollm2):
    c = smollm2.config
    assert (c.n_layers, c.n_heads, c.n_kv_heads, c.head_dim, c.d_model) == (30, 9, 3, 64, 576)
    assert c.group == 3 and c.window is None and c.rope_base == 100_000.0
    assert (c.qk_norm, c.post_norms, c.activation, c.embed_scale) == (False, False, "silu", False)
    assert smollm2.head is None  # tied: the embedding is the LM head


@pytest.mark.parametrize("text", list(REFERENCE["ids"]))
def test_token_ids_are_transformers_own(smollm2, text):
    assert smollm2.encode(text) == REFERENCE["ids"][text]


def test_the_text_comes_back_from_its_ids_and_chinese_is_bytes(smollm2):
    for text in REFERENCE["ids"]:
        assert smollm2.decode(smollm2.encode(text)) == text
    ids = smollm2.encode("今天天气很好")
    assert len(ids) == 13  # byte-level pieces, where Gemma's SentencePiece gives words
    assert b"".join(smollm2.tokenizer.piece_bytes(i) for i in ids) == "今天天气很好".encode()


@pytest.mark.parametrize("prompt", list(REFERENCE["prompts"]))
def test_logits_at_every_position_match_transformers(smollm2, prompt):
    ref = REFERENCE["prompts"][prompt]
    assert smollm2.encode(prompt) == ref["ids"]
    logits = smollm2.forward(ref["ids"]).logits
    for position, (ids, values) in enumerate(zip(ref["top_ids"], ref["top_logits"], strict=True)):
        assert int(np.argmax(logits[position])) == ids[0]
        np.testing.assert_allclose(logits[position][ids], values, atol=1e-3)


@pytest.mark.parametrize("prompt", list(REFERENCE["prompts"]))
def test_greedy_text_with_the_cache_is_transformers_own(smollm2, prompt):
    ref = REFERENCE["prompts"][prompt]
    trace = smollm2.forward(ref["ids"])
    written = []
    for _ in ref["greedy"]:
        written.append(int(np.argmax(trace.logits[-1])))
        trace = smollm2.forward([written[-1]], trace.cache)
    assert written == ref["greedy"]
    if prompt.startswith("The capital"):
        assert smollm2.decode(written).startswith(" Paris.")


def test_the_first_and_last_layers_attention_match_transformers(smollm2):
    ids = ATTENTION["ids"].tolist()
    A = smollm2.forward(ids).A
    np.testing.assert_allclose(A[0], ATTENTION["first"], atol=1e-4)
    np.testing.assert_allclose(A[-1], ATTENTION["last"], atol=1e-4)
    assert A[0].shape == (9, len(ids), len(ids))  # per query head


def test_cached_decoding_equals_the_whole_pass(smollm2):
    ids = smollm2.encode("One, two, three, four, five")
    whole = smollm2.forward(ids)
    trace = smollm2.forward(ids[:3])
    for token in ids[3:]:
        trace = smollm2.forward([token], trace.cache)
    np.testing.assert_allclose(trace.logits[-1], whole.logits[-1], atol=2e-4)
    np.testing.assert_allclose(trace.A[-1][:, -1], whole.A[-1][:, -1], atol=1e-5)
    assert trace.cache.K[0].shape == (3, len(ids), 64)  # K and V kept once per K/V head
    assert trace.cache.nbytes == 4 * 2 * 30 * 3 * len(ids) * 64


def test_grouped_heads_equal_a_loop_that_repeats_each_kv_head(smollm2):
    """Layer 4's attention computed here head by head, query head j reading K/V head j // 3 (as
    transformers' repeat_kv does), from the layer's own q, k and v."""
    c = smollm2.config
    ids = smollm2.encode("The cat sat on the mat because it was tired")
    run = smollm2.forward(ids, residuals=True)
    layer = 4
    positions = np.arange(len(ids))
    x = rms_norm(run.H[layer], smollm2.layers[layer].attn_norm, c.eps)
    q, k, v = smollm2.project(layer, x, positions)  # [9, n, 64], [3, n, 64], [3, n, 64]
    mask = allowed(positions, positions, None)
    for j in range(c.n_heads):
        K = k[j // 3]
        S = q[j] @ K.T / math.sqrt(c.head_dim)
        S = np.where(mask, S, -np.inf)
        A = np.exp(S - S.max(axis=1, keepdims=True))
        A /= A.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(run.A[layer][j], A, atol=1e-6)
    cache = KVCache([None] * layer, [None] * layer)  # the layers before it: not read here
    out, _ = smollm2.read_cache(layer, q, k, v, positions, cache)
    heads = [run.A[layer][j] @ v[j // 3] for j in range(c.n_heads)]
    np.testing.assert_allclose(out, np.stack(heads), atol=1e-5)


def test_each_model_follows_its_own_rule_for_a_first_token(smollm2, gemma):
    assert smollm2.encode("cat")[0] != smollm2.tokenizer.bos and len(smollm2.encode("cat")) == 1
    assert gemma.encode("cat")[0] == gemma.tokenizer.bos


def test_its_induction_heads_copy_the_repeat_and_share_k_v_groups(smollm2):
    """On 40 random pieces repeated, SmolLM2's strongest induction heads (the inside page's
    score, core.lessons.model_reading) sit in layers 18-19 (from 0: 17-18), two by two in one K/V
    group: 19.7 and 19.8 read K/V head 3, 18.4 and 18.5 K/V head 2; the second copy's loss
    falls from about 12.8 nats to 3.7."""
    from core.lessons import model_reading

    ids = model_reading.repeated_tokens(smollm2, 0)
    k = model_reading.REPEAT_LENGTH  # no <|im_start|> first: SmolLM2 puts nothing before a text
    assert len(ids) == 2 * k and smollm2.tokenizer.bos not in ids and ids[:k] == ids[k:]
    run = smollm2.forward(list(ids), residuals=True, rows=0)
    scores = model_reading.head_scores(run.A, ids)["induction"]  # [layers, heads]
    best = [divmod(int(k), 9) for k in np.argsort(-scores.ravel())[:4]]
    assert sorted(best) == [(17, 3), (17, 4), (18, 6), (18, 7)]
    assert scores[18, 6] > 0.8 and scores[17, 3] > 0.6
    assert {h // 3 for layer, h in best if layer == 18} == {2}  # one K/V group, counted from 0
    first, second = model_reading.copy_halves(model_reading.losses_of(smollm2, run.H[-1], ids))
    assert first > 10 and second < 4.5
