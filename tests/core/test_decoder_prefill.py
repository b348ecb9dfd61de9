"""The decoder's long-prompt paths (core/pretrained/decoder.py): a prefill's products in blocks on
every core, the feed-forward a block of rows at a time, and attention a block of query rows at a
time over only the keys those rows may read. Each against the same piece computed whole (or by
hand in float64): the same numbers to float32's rounding, and A exactly 0 where the mask
forbids."""

import math
from dataclasses import replace

import numpy as np
import pytest

from core import threads
from core.pretrained import decoder
from core.pretrained.decoder import Decoder, DecoderConfig, KVCache, allowed, gelu_tanh


@pytest.fixture
def every_core(monkeypatch):
    """The long-prompt paths taken by small arrays too, in small blocks, on two workers at least
    (a 1-core machine runs the same blocks one after another)."""
    monkeypatch.setattr(threads, "WORKERS", max(2, threads.WORKERS))
    monkeypatch.setattr(threads, "PARALLEL_FROM", 1)
    monkeypatch.setattr(threads, "ROW_BYTES", 4096)  # attention: a few query rows a block
    monkeypatch.setattr(decoder, "MULTIPLY_ADDS_FROM", 1)


@pytest.fixture
def whole(monkeypatch):
    """Every piece computed whole, as a step or a short prompt is."""
    monkeypatch.setattr(threads, "PARALLEL_FROM", 1 << 62)
    monkeypatch.setattr(decoder, "MULTIPLY_ADDS_FROM", 1 << 62)


def by_hand(q, K, V, q_positions, window):
    """Attention in float64 from its definition: every score, the mask, softmax, A V."""
    n_kv, t, hd = K.shape
    group = q.shape[0] // n_kv
    A = np.zeros((q.shape[0], q.shape[1], t))
    for head in range(q.shape[0]):
        S = q[head].astype(np.float64) @ K[head // group].T.astype(np.float64) / math.sqrt(hd)
        S[~allowed(q_positions, np.arange(t), window)] = -np.inf
        E = np.exp(S - S.max(axis=1, keepdims=True))
        A[head] = E / E.sum(axis=1, keepdims=True)
    O = np.stack([A[head] @ V[head // group] for head in range(q.shape[0])])
    return O, A


def bare(config: DecoderConfig) -> Decoder:
    """A decoder with no weights: read_cache uses its config alone."""
    return Decoder(config, np.zeros((1, config.d_model), np.float32), [], None, None)


CONFIGS = {  # Gemma's shape (one K/V head for four query heads) and SmolLM2's (three for nine)
    "multi-query": DecoderConfig(64, 6, 4, 1, 16, 32, 1e-6, 24, 1e6, 4096, 6, 1e4),
    "grouped": DecoderConfig(64, 2, 9, 3, 8, 32, 1e-6, None, 1e5, 4096),
}


@pytest.mark.parametrize("name", list(CONFIGS))
@pytest.mark.parametrize("layer", [0, 5])  # a local layer (with a window) and a global one
def test_attention_in_blocks_of_query_rows_is_attention(every_core, name, layer):
    config = CONFIGS[name]
    rng = np.random.default_rng(layer)
    n_cached, n = 37, 90  # a cache, then a prompt longer than the window
    c = config

    def heads(count, rows):
        return rng.standard_normal((count, rows, c.head_dim), dtype=np.float32)

    cache = KVCache([heads(c.n_kv_heads, n_cached)] * (layer + 1),
                    [heads(c.n_kv_heads, n_cached)] * (layer + 1))  # fmt: skip
    q, k, v = heads(c.n_heads, n), heads(c.n_kv_heads, n), heads(c.n_kv_heads, n)
    positions = np.arange(n_cached, n_cached + n)
    old_K, old_V = cache.K[layer], cache.V[layer]
    O, A = bare(config).read_cache(layer, q, k, v, positions, cache)
    K, V = np.concatenate([old_K, k], axis=1), np.concatenate([old_V, v], axis=1)
    window = c.window if c.is_local(layer) else None
    O_hand, A_hand = by_hand(q, K, V, positions, window)
    np.testing.assert_allclose(A, A_hand, atol=2e-6)
    np.testing.assert_allclose(O, O_hand, atol=1e-5)
    forbidden = ~allowed(positions, np.arange(K.shape[1]), window)
    assert (A[:, forbidden] == 0).all()  # never computed: exactly 0
    assert A.dtype == O.dtype == np.float32 and O.shape == (c.n_heads, n, c.head_dim)


@pytest.mark.parametrize("paths", ["every_core", "whole"])
@pytest.mark.parametrize("A_rows", [0, 1, 5, 90, 200])  # none, a row, inside a block, all, more
def test_attention_keeping_the_last_rows_weights_is_attention(request, paths, A_rows):
    """read_cache's A_rows: the same outputs, and the last A_rows rows of the weights by hand
    (those rows spanning blocks, or inside one), for Gemma's shape on a local and a global layer
    and for SmolLM2's."""
    request.getfixturevalue(paths)
    rng = np.random.default_rng(A_rows)
    for config, layer in [(CONFIGS["multi-query"], 0), (CONFIGS["multi-query"], 5),
                          (CONFIGS["grouped"], 1)]:  # fmt: skip
        n_cached, n, c = 37, 90, config
        old_K, old_V = (rng.standard_normal((c.n_kv_heads, n_cached, c.head_dim), np.float32)
                        for _ in range(2))  # fmt: skip
        q = rng.standard_normal((c.n_heads, n, c.head_dim), np.float32)
        k, v = (rng.standard_normal((c.n_kv_heads, n, c.head_dim), np.float32) for _ in range(2))
        positions = np.arange(n_cached, n_cached + n)
        cache = KVCache([old_K] * (layer + 1), [old_V] * (layer + 1))
        O, A = bare(config).read_cache(layer, q, k, v, positions, cache, A_rows)
        K, V = np.concatenate([old_K, k], axis=1), np.concatenate([old_V, v], axis=1)
        window = c.window if c.is_local(layer) else None
        O_hand, A_hand = by_hand(q, K, V, positions, window)
        kept = min(A_rows, n)
        assert A.shape == (c.n_heads, kept, n_cached + n)
        np.testing.assert_allclose(A, A_hand[:, n - kept :], atol=2e-6)
        np.testing.assert_allclose(O, O_hand, atol=1e-5)


def test_a_product_in_blocks_of_the_weights_rows_is_the_product(every_core):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((40, 24), dtype=np.float32)
    W = rng.standard_normal((300, 24), dtype=np.float32)  # 300 outputs: blocks of 64 and a rest
    assert decoder.on_every_core(x, x.size * W.shape[0])
    np.testing.assert_allclose(decoder.times(x, W), x.astype(np.float64) @ W.T, atol=1e-4)


def test_the_feed_forward_in_blocks_of_rows_is_the_feed_forward(every_core):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((70, 24), dtype=np.float32)
    W = rng.standard_normal((24, 24), dtype=np.float32)
    blocks = []

    def f(rows):
        blocks.append(len(rows))
        return gelu_tanh(rows @ W)

    together = decoder.by_rows(f, x, 24)
    assert len(blocks) > 1 and sum(blocks) == 70
    np.testing.assert_allclose(together, gelu_tanh(x @ W), rtol=1e-6, atol=1e-5)  # BLAS's
    # kernels for a block's rows may add in another order than for all of them


def test_gelu_cubes_by_products_to_float32s_rounding():
    x = np.linspace(-12, 12, 100_001, dtype=np.float32)
    by_power = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    np.testing.assert_allclose(gelu_tanh(x), by_power, rtol=1e-6, atol=1e-7)
    assert gelu_tanh(x).dtype == np.float32


@pytest.mark.parametrize("model", ["gemma", "smollm2"])
def test_a_long_prompt_on_every_core_is_the_prompt_computed_whole(request, monkeypatch, model):
    """A prompt of 160 tokens after a cache of 40 (Gemma's window narrowed to 64, so that its
    local layers' blocks start inside it), every piece in blocks, against every piece whole."""
    loaded = request.getfixturevalue(model)
    config = replace(loaded.config, window=64) if loaded.config.window else loaded.config
    m = Decoder(config, loaded.E, loaded.layers, loaded.final_norm, loaded.tokenizer,
                head=loaded.head)  # fmt: skip
    ids = (m.encode("The cat sat on the mat, and the dog sat on the rug. ") * 20)[:200]
    request.getfixturevalue("whole")
    first = m.forward(ids[:40])
    plain = m.forward(ids[40:], first.cache, rows=3)
    request.getfixturevalue("every_core")
    fast = m.forward(ids[40:], first.cache, rows=3)
    np.testing.assert_allclose(fast.logits, plain.logits, atol=2e-3, rtol=1e-4)
    assert (fast.logits.argmax(axis=1) == plain.logits.argmax(axis=1)).all()
    positions, keys = np.arange(40, 200), np.arange(200)
    for layer, (A, A_plain) in enumerate(zip(fast.A, plain.A, strict=True)):
        np.testing.assert_allclose(A, A_plain, atol=1e-5)
        window = config.window if config.is_local(layer) else None
        assert (A[:, ~allowed(positions, keys, window)] == 0).all()  # never computed: 0
    for K, K_plain in zip(fast.cache.K, plain.cache.K, strict=True):
        np.testing.assert_allclose(K, K_plain, atol=1e-3, rtol=1e-4)
