"""Inside Gemma 3 270M (core/pretrained/gemma.py): the residual stream after every layer against
transformers' output_hidden_states (the fixture bench/make_gemma_reference.py recorded), the
logit lens, the stream as a sum of its additions, and heads switched off against a per-head loop
written here."""

import math
from pathlib import Path

import numpy as np
import pytest

from core.pretrained.gemma import allowed, rms_norm, rope, softmax_rows

HIDDEN = np.load(Path(__file__).parent / "reference" / "gemma3_270m_hidden.npz")


def _relative(a, b) -> float:
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def test_the_residual_after_every_layer_is_transformers_hidden_state(gemma):
    ids, hidden = HIDDEN["ids"].tolist(), HIDDEN["hidden"]  # [L + 1, n, d_model]
    run = gemma.forward(ids, residuals=True)
    L = gemma.config.n_layers
    assert len(run.H) == L + 1 and hidden.shape[0] == L + 1
    for layer in range(L):  # the scaled embedding, then each layer's output but the last
        assert _relative(run.H[layer], hidden[layer]) <= 1e-3, layer
    # transformers' last one is after the final norm; H[-1] is before it
    normed = rms_norm(run.H[-1], gemma.final_norm, gemma.config.eps)
    assert _relative(normed, hidden[L]) <= 1e-3


def test_the_lens_of_the_last_layer_is_the_models_logits(gemma):
    run = gemma.forward(gemma.encode("中国的首都是"), residuals=True)
    np.testing.assert_array_equal(gemma.lens(run.H[-1]), run.logits)
    # and without residuals the same pass gives the same logits, with no H kept
    plain = gemma.forward(gemma.encode("中国的首都是"))
    np.testing.assert_array_equal(plain.logits, run.logits)
    assert plain.H is None and plain.added is None


def test_the_lens_is_the_final_norm_then_the_tied_head_by_hand(gemma):
    run = gemma.forward(gemma.encode("The cat"), residuals=True)
    c, h = gemma.config, run.H[9][-1].astype(np.float64)
    normed = h / math.sqrt(float(np.mean(h * h)) + c.eps) * gemma.final_norm
    token = int(np.argmax(gemma.lens(run.H[9])[-1]))
    assert gemma.lens(run.H[9])[-1, token] == pytest.approx(normed @ gemma.E[token], rel=1e-4)


def test_each_layer_adds_its_attention_and_its_feed_forward(gemma):
    run = gemma.forward(gemma.encode("法语：fleur，中文：花。"), residuals=True)
    assert len(run.added) == gemma.config.n_layers
    for i, (attention, ff) in enumerate(run.added):
        np.testing.assert_array_equal(run.H[i + 1], (run.H[i] + attention) + ff)
    total = run.H[0] + sum(a + f for a, f in run.added)
    np.testing.assert_allclose(total, run.H[-1], rtol=1e-4, atol=1e-3)


def _layer_output_by_heads(gemma, i: int, h_in, off: set) -> np.ndarray:
    """Layer i's attention addition for a whole sequence, one query head at a time: each head's
    own weights and its block of W_O's columns, the heads in ``off`` left out of the sum."""
    c, w = gemma.config, gemma.layers[i]
    n = h_in.shape[0]
    x = rms_norm(h_in, w.attn_norm, c.eps)
    positions = np.arange(n)
    base = 10_000.0 if c.is_local(i) else c.rope_base
    k = rope(rms_norm(x @ w.W_K.T, w.k_norm, c.eps), positions, base)  # [n, hd], one K/V head
    v = x @ w.W_V.T
    mask = allowed(positions, positions, c.window if c.is_local(i) else None)
    out = np.zeros((n, c.d_model), dtype=np.float64)
    for head in range(c.n_heads):
        if head in off:
            continue
        block = slice(head * c.head_dim, (head + 1) * c.head_dim)
        q = rope(rms_norm(x @ w.W_Q[block].T, w.q_norm, c.eps), positions, base)
        A = softmax_rows(np.where(mask, q @ k.T / math.sqrt(c.head_dim), -np.inf))
        out += (A @ v) @ w.W_O[:, block].T
    return rms_norm(out.astype(np.float32), w.post_attn_norm, c.eps)


@pytest.mark.parametrize("off", [{(5, 1)}, {(5, 0), (5, 3)}, {(11, 2), (5, 1)}])
def test_heads_switched_off_are_left_out_of_a_per_head_sum(gemma, off):
    ids = gemma.encode("The cat sat on the mat, and the cat")
    whole = gemma.forward(ids, residuals=True)
    run = gemma.forward(ids, residuals=True, off=off)
    first = min(layer for layer, _ in off)
    for layer in range(first + 1):  # nothing before the first switched-off layer changes
        np.testing.assert_array_equal(run.H[layer], whole.H[layer])
    for layer in sorted({layer for layer, _ in off}):
        heads = {head for at, head in off if at == layer}
        expected = _layer_output_by_heads(gemma, layer, run.H[layer], heads)
        np.testing.assert_allclose(run.added[layer][0], expected, rtol=1e-3, atol=1e-3)
        kept = _layer_output_by_heads(gemma, layer, run.H[layer], set())
        assert np.abs(kept - expected).max() > 1e-2  # the heads switched off did contribute
    assert np.abs(run.logits - whole.logits).max() > 0


def test_no_head_off_is_the_whole_model(gemma):
    ids = gemma.encode("猫坐在")
    np.testing.assert_array_equal(gemma.forward(ids, off=set()).logits, gemma.forward(ids).logits)
