"""Gemma 3 270M in NumPy (core/pretrained/gemma.py) against transformers' own run of the same
GGUF (the fixture bench/make_gemma_reference.py recorded), and against independent computations:
recomputing the whole sequence, a per-token loop over the layer's attention, the window's rule."""

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import core
from core.lessons.sampling import candidates, most_likely, next_token, pick
from core.pretrained.gemma import Gemma, allowed, rms_norm, rope

REFERENCE = json.loads(
    (Path(__file__).parent / "reference" / "gemma3_270m.json").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("text", list(REFERENCE["ids"]))
def test_token_ids_are_transformers_own(gemma, text):
    assert gemma.encode(text) == REFERENCE["ids"][text]


def test_the_text_comes_back_from_its_ids(gemma):
    for text in REFERENCE["ids"]:
        assert gemma.decode(gemma.encode(text)) == text


@pytest.mark.parametrize("prompt", list(REFERENCE["prompts"]))
def test_logits_at_every_position_match_transformers(gemma, prompt):
    ref = REFERENCE["prompts"][prompt]
    logits = gemma.forward(ref["ids"]).logits  # [n, vocab]
    top_ids, top = np.array(ref["top_ids"]), np.array(ref["top_logits"])
    assert np.abs(np.take_along_axis(logits, top_ids, axis=1) - top).max() <= 1e-3
    for i, row in enumerate(logits):  # the five most likely next tokens, in order
        assert list(np.argsort(-row, kind="stable")[:5]) == list(top_ids[i, :5]), i


@pytest.mark.parametrize("prompt", list(REFERENCE["prompts"]))
def test_greedy_text_with_the_cache_is_transformers_own(gemma, prompt):
    ref = REFERENCE["prompts"][prompt]
    trace = gemma.forward(ref["ids"])
    written = []
    for _ in range(len(ref["greedy"])):
        written.append(int(trace.logits[-1].argmax()))
        trace = gemma.forward([written[-1]], trace.cache)
    assert written == ref["greedy"]


def test_cached_decoding_equals_recomputing_the_whole_sequence(gemma):
    ids = gemma.encode("注意力机制让模型在生成每个词时")
    whole = gemma.forward(ids)
    step = gemma.forward(ids[:4])
    rows = [step.logits]
    for i in ids[4:]:
        step = gemma.forward([i], step.cache)
        rows.append(step.logits)
    np.testing.assert_allclose(np.concatenate(rows), whole.logits, atol=2e-3, rtol=0)
    assert step.cache.length == len(ids)
    for layer, A in enumerate(step.A):  # the last row's weights, cached or not
        np.testing.assert_allclose(A[:, -1], whole.A[layer][:, -1], atol=1e-5)


def test_attention_rows_match_a_per_token_loop(gemma):
    """Layer 0 recomputed one query at a time from its own q and k vectors, with math.exp."""
    c, w = gemma.config, gemma.layers[0]
    ids = gemma.encode("The cat sat on the mat")
    trace = gemma.forward(ids)
    x = rms_norm(gemma.E[np.asarray(ids)] * np.float32(math.sqrt(c.d_model)), w.attn_norm, c.eps)
    positions = np.arange(len(ids))
    q = rms_norm((x @ w.W_Q.T).reshape(len(ids), c.n_heads, -1), w.q_norm, c.eps)
    k = rms_norm(x @ w.W_K.T, w.k_norm, c.eps)  # [n, 256]: one K head
    for h in range(c.n_heads):
        for i in range(len(ids)):
            qi = rope(q[i : i + 1, h], positions[i : i + 1], 10_000.0)[0]
            scores = [
                float(qi @ rope(k[j : j + 1], positions[j : j + 1], 10_000.0)[0]) / 16.0
                for j in range(i + 1)
            ]
            top = max(scores)
            total = sum(math.exp(s - top) for s in scores)
            expected = [math.exp(s - top) / total for s in scores] + [0.0] * (len(ids) - i - 1)
            np.testing.assert_allclose(trace.A[0][h, i], expected, atol=1e-5)


def test_rows_sum_to_one_and_nothing_reads_the_future(gemma):
    trace = gemma.forward(gemma.encode("今天天气很好"))
    for A in trace.A:
        np.testing.assert_allclose(A.sum(axis=-1), 1.0, atol=1e-5)
        assert (np.triu(A, k=1) == 0).all()


def test_the_window_is_the_rule_of_the_local_layers():
    q = np.arange(8)
    assert allowed(q, q, None).sum() == 36  # causal: 1 + 2 + … + 8
    local = allowed(q, q, 3)  # each query reads itself and the two before it
    assert local.sum(axis=1).tolist() == [1, 2, 3, 3, 3, 3, 3, 3]
    assert not local[7, 4] and local[7, 5]


def test_the_window_changes_a_long_prompt_on_a_local_layer_only(gemma):
    small = Gemma(replace(gemma.config, window=4), gemma.E, gemma.layers, gemma.final_norm,
                  gemma.tokenizer)  # fmt: skip
    ids = gemma.encode("one two three four five six seven eight nine ten")
    wide, narrow = gemma.forward(ids).A, small.forward(ids).A
    for layer in range(gemma.config.n_layers):
        if gemma.config.is_local(layer):
            assert (narrow[layer][:, -1, : len(ids) - 4] == 0).all()
            assert (wide[layer][:, -1, : len(ids) - 4] > 0).any()
        elif layer == 5:  # the first global layer: its input already differs, not its mask
            assert (narrow[layer][:, -1, : len(ids) - 4] > 0).any()
    assert [l for l in range(18) if not gemma.config.is_local(l)] == [5, 11, 17]


def test_multi_query_keeps_one_k_and_v_head(gemma):
    trace = gemma.forward(gemma.encode("猫坐在"))
    assert trace.cache.K[0].shape == (1, 3, 256) and trace.A[0].shape == (4, 3, 3)
    per_token = 2 * 18 * 256 * 4  # K and V, 18 layers, one head of 256 float32
    assert trace.cache.nbytes == 3 * per_token  # four query heads would need four times this


def test_every_kind_of_tensor_dequantises_as_gguf_does_it_row_by_row(gemma):
    """The file's tensors, read a block of rows at a time as one long row, against llama.cpp's
    gguf on the whole tensor in its own way (groups of rows): the same floats, bit for bit."""
    from importlib import import_module

    from gguf.constants import GGMLQuantizationType
    from gguf.quants import dequantize

    from core.pretrained.gguf_file import GGUFFile

    f = GGUFFile(import_module(core.decoder_entry("gemma3-270m").package).chunk_paths())
    smallest = {}  # quantisation -> its smallest tensor (the embedding alone is 169M values)
    for name, info in f.tensors.items():
        size = math.prod(info.shape)
        if size > smallest.get(info.kind, ("", math.inf))[1]:
            continue
        smallest[info.kind] = (name, size)
    assert len(smallest) >= 4  # F32, Q5_0, Q8_0 and the K-quants
    for kind, (name, _) in smallest.items():
        data, _ = f.raw(name)
        expected = dequantize(data, GGMLQuantizationType(kind))
        np.testing.assert_array_equal(f.tensor(name), expected.reshape(f.tensors[name].shape))
    embedding = f.tensor("token_embd.weight")  # Q8_0, over many blocks of rows
    rows = f.raw("token_embd.weight")[0][-5000:]
    np.testing.assert_array_equal(embedding[-5000:], dequantize(rows, GGMLQuantizationType.Q8_0))


def test_a_missing_package_is_a_learner_message(monkeypatch):
    import core.decoder

    core.decoder.load_decoder.cache_clear()
    for name, model in core.decoder.MODELS.items():
        missing = replace(model, package="no_such_package_anywhere")
        monkeypatch.setitem(core.decoder.MODELS, name, missing)
        with pytest.raises(core.InputError) as error:
            core.decoder.load_decoder(name)
        assert error.value.code == "model_missing" and "pip install" in error.value.params["hint"]
        assert name not in core.decoder.decoder_names()
    core.decoder.load_decoder.cache_clear()


def test_top_k_keeps_k_and_top_p_the_smallest_set_reaching_p():
    logits = np.log(np.array([0.05, 0.4, 0.3, 0.15, 0.1]))
    assert next_token(logits, 1.0, top_k=2).kept.tolist() == [False, True, True, False, False]
    kept = next_token(logits, 1.0, top_p=0.8).kept  # 0.4 + 0.3 < 0.8 ≤ 0.4 + 0.3 + 0.15
    assert kept.tolist() == [False, True, True, True, False]
    dist = next_token(logits, 1.0, top_k=3, top_p=0.5)
    assert dist.kept.sum() == 2 and math.isclose(dist.q.sum(), 1.0)
    np.testing.assert_allclose(dist.q[[1, 2]], [0.4 / 0.7, 0.3 / 0.7])


@pytest.mark.parametrize(
    ("temperature", "top_k", "top_p"),
    [(1.0, 0, 1.0), (0.7, 40, 0.9), (1.0, 0, 0.999), (2.0, 0, 0.9999), (0.0, 0, 1.0)],
)
def test_putting_only_the_most_likely_in_order_changes_nothing(temperature, top_k, top_p):
    """next_token sorts the top 1024 ids (all of them when top-p needs more): its bars' order,
    kept set and q equal those of a full stable sort, ties broken by id, on 262 144 logits
    with many ties (rounded) and a flat tail that top-p 0.999 reaches into."""
    rng = np.random.default_rng(5)
    logits = np.round(rng.normal(0, 3, 262_144), 1)
    full = np.argsort(-logits, kind="stable")
    assert most_likely(logits, 1024).tolist() == full[:1024].tolist()
    assert most_likely(logits, 7).tolist() == full[:7].tolist()
    dist = next_token(logits, temperature, top_k, top_p)
    assert dist.order.tolist() == full[: dist.order.size].tolist() and dist.order.size >= 1024
    p = dist.p
    count = logits.size if top_k == 0 else top_k
    if temperature == 0:
        count = 1
    if top_p < 1:
        count = min(count, int(np.searchsorted(np.cumsum(p[full]), top_p, side="left")) + 1)
    kept = np.zeros(logits.size, bool)
    kept[full[:count]] = True
    assert (dist.kept == kept).all()
    np.testing.assert_allclose(dist.q, np.where(kept, p, 0) / p[kept].sum(), rtol=1e-12)


def test_the_candidates_are_the_distributions_most_likely_with_their_numbers():
    """What the bars keep of a distribution, by hand on five logits: top-k 2 of them, T = 2."""
    logits = np.log(np.array([0.05, 0.4, 0.3, 0.15, 0.1]))
    dist = next_token(logits, 2.0, top_k=2)
    top = candidates(dist, 3)
    assert top.ids.tolist() == [1, 2, 3] and top.kept.tolist() == [True, True, False]
    np.testing.assert_allclose(top.logits, np.log([0.4, 0.3, 0.15]))
    np.testing.assert_allclose(top.scaled, np.log([0.4, 0.3, 0.15]) / 2)
    root = np.sqrt([0.05, 0.4, 0.3, 0.15, 0.1])  # softmax of log(p) / 2
    np.testing.assert_allclose(top.p, root[[1, 2, 3]] / root.sum())
    np.testing.assert_allclose(
        top.q, [root[1] / (root[1] + root[2]), root[2] / (root[1] + root[2]), 0]
    )
    assert (top.kept_count, top.vocab) == (2, 5)


def test_temperature_reshapes_and_zero_is_the_argmax():
    logits = np.array([1.0, 2.0, 0.5])
    hot, cold = next_token(logits, 2.0).p, next_token(logits, 0.5).p
    assert hot.max() < next_token(logits, 1.0).p.max() < cold.max()
    zero = next_token(logits, 0.0)
    assert zero.kept.tolist() == [False, True, False] and pick(zero) == 1
    assert pick(zero, np.random.default_rng(3)) == 1


def test_the_same_seed_writes_the_same_text(gemma):
    def write(seed):
        trace, rng, out = gemma.forward(gemma.encode("The cat")), np.random.default_rng(seed), []
        for _ in range(5):
            out.append(pick(next_token(trace.logits[-1], 1.0, 40, 0.95), rng))
            trace = gemma.forward([out[-1]], trace.cache)
        return out

    assert write(7) == write(7)
    assert len({tuple(write(s)) for s in (1, 2, 3, 4)}) > 1


def test_pieces_name_each_id_and_bytes_stay_bytes(gemma):
    assert gemma.pieces(gemma.encode("The cat 🙂")) == ["<bos>", "The", "▁cat", "▁🙂"]
    # 𠀀 (U+20000) is not in the vocabulary: its four UTF-8 bytes, each a piece of its own
    assert gemma.pieces(gemma.encode("𠀀")) == ["<bos>", "<0xF0>", "<0xA0>", "<0x80>", "<0x80>"]
    assert gemma.decode(gemma.encode("𠀀")) == "𠀀"


def test_several_sequences_stepped_at_once_equal_each_stepped_alone(gemma):
    """Gemma.steps: one new token for each of several sequences of different lengths (one past
    a local layer's window), each after its own cache, equal to forward() on each alone."""
    prompts = [
        gemma.encode("The cat sat on the"),
        gemma.encode("今天天气很好，我们一起去"),
        gemma.encode("one two three four five six seven eight nine ten"),
    ]
    caches = [gemma.forward(ids[:-1]).cache for ids in prompts]
    tokens = [ids[-1] for ids in prompts]
    together = gemma.steps(tokens, caches)
    for ids, cache, trace in zip(prompts, caches, together, strict=True):
        alone = gemma.forward([ids[-1]], cache)
        assert trace.ids == alone.ids and trace.positions.tolist() == [len(ids) - 1]
        np.testing.assert_allclose(trace.logits, alone.logits, atol=2e-4, rtol=1e-5)
        assert int(trace.logits.argmax()) == int(alone.logits.argmax())
        for A, A_alone in zip(trace.A, alone.A, strict=True):
            np.testing.assert_allclose(A, A_alone, atol=1e-5)
        for K, K_alone in zip(trace.cache.K, alone.cache.K, strict=True):
            np.testing.assert_allclose(K, K_alone, atol=1e-4, rtol=1e-5)  # float32 rounding
        assert cache.length == len(ids) - 1  # the caches given are left as they were
