"""A third decoder is a reader and a registry row (issue 65): a tiny random llama-family model
with q/k/v/o biases and grouped-query attention, written by gguf's own writer, read by
core/pretrained/llama.py and computed by the app's one decoder, equals this test's own forward
pass, written out one query and one head at a time from the same arrays."""

import math

import numpy as np
import pytest

import core
from tests.support.third_model import CONTEXT, N_HEADS, N_KV, NAME, third_model, weights


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    with third_model(tmp_path_factory.mktemp("third")) as row:
        yield row, core.load_decoder(NAME)


def _rms(x, w, eps=1e-5):
    return x / np.sqrt(np.mean(x * x) + eps) * w


def _rope_neighbours(x, pos, base=10_000.0):
    """Each pair (x_2i, x_2i+1) turned by pos / base^(2i/d): llama.cpp's layout for llama."""
    out, d = x.copy(), len(x)
    for i in range(d // 2):
        angle = pos / base ** (2 * i / d)
        a, b = x[2 * i], x[2 * i + 1]
        out[2 * i], out[2 * i + 1] = (
            a * math.cos(angle) - b * math.sin(angle),
            a * math.sin(angle) + b * math.cos(angle),
        )
    return out


def _by_hand(ids, w) -> np.ndarray:
    """The logits of every position, a token, a head and a key at a time, in float64."""
    w = {k: v.astype(np.float64) for k, v in w.items()}
    hd, group = w["blk.0.attn_q.weight"].shape[0] // N_HEADS, N_HEADS // N_KV
    h = [w["token_embd.weight"][i] for i in ids]
    for layer in range(2):
        p = f"blk.{layer}."
        xs = [_rms(x, w[p + "attn_norm.weight"]) for x in h]
        q = [w[p + "attn_q.weight"] @ x + w[p + "attn_q.bias"] for x in xs]
        k = [w[p + "attn_k.weight"] @ x + w[p + "attn_k.bias"] for x in xs]
        v = [w[p + "attn_v.weight"] @ x + w[p + "attn_v.bias"] for x in xs]
        new = []
        for t in range(len(ids)):
            heads = []
            for head in range(N_HEADS):
                kv = head // group  # the K/V head this query head reads
                qt = _rope_neighbours(q[t][head * hd : (head + 1) * hd], t)
                scores = [
                    qt @ _rope_neighbours(k[j][kv * hd : (kv + 1) * hd], j) / math.sqrt(hd)
                    for j in range(t + 1)
                ]
                a = np.exp(np.array(scores) - max(scores))
                a /= a.sum()
                heads.append(sum(a[j] * v[j][kv * hd : (kv + 1) * hd] for j in range(t + 1)))
            out = w[p + "attn_output.weight"] @ np.concatenate(heads) + w[p + "attn_output.bias"]
            x = h[t] + out
            f = _rms(x, w[p + "ffn_norm.weight"])
            gate = w[p + "ffn_gate.weight"] @ f
            new.append(
                x
                + w[p + "ffn_down.weight"]
                @ (gate / (1 + np.exp(-gate)) * (w[p + "ffn_up.weight"] @ f))
            )
        h = new
    return np.stack([w["token_embd.weight"] @ _rms(x, w["output_norm.weight"]) for x in h])


def test_its_facts_come_from_its_gguf(tiny):
    _, model = tiny
    c = model.config
    assert (c.n_layers, c.n_heads, c.n_kv_heads, c.group, c.context) == (2, 4, 2, 2, CONTEXT)
    assert model.name == NAME and model.head is None  # tied: no output.weight written
    assert all(layer.b_Q is not None and layer.b_O is not None for layer in model.layers)


def test_its_logits_equal_a_forward_pass_by_hand_biases_included(tiny):
    _, model = tiny
    ids = model.encode("the cat at the inn")
    assert len(ids) < len(b" the cat at the inn")  # the merges merged some bytes
    got = model.forward(ids).logits
    np.testing.assert_allclose(got, _by_hand(ids, weights()), rtol=0, atol=2e-4)
    no_bias = {k: (np.zeros_like(v) if k.endswith(".bias") else v) for k, v in weights().items()}
    assert np.abs(got - _by_hand(ids, no_bias)).max() > 0.1  # the biases count


def test_cached_decoding_equals_the_whole_pass(tiny):
    _, model = tiny
    ids = model.encode("in the net")
    whole = model.forward(ids)
    trace = model.forward(ids[:2])
    for token in ids[2:]:
        trace = model.forward([token], trace.cache)
    np.testing.assert_allclose(trace.logits[-1], whole.logits[-1], rtol=0, atol=1e-4)
