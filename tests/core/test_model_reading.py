"""The inside page's figures (core/lessons/model_reading.py) against loops written here: the
logit lens row by row, the residual stream's parts adding up to the logit, each head's scores
over its attention map, and the loss on each next piece."""

import math

import numpy as np
import pytest

from core.lessons import model_reading
from core.pretrained.gemma import rms_norm

PROMPT = "法语：fleur，中文：花。法语：montagne，中文："


@pytest.fixture(scope="module")
def translation(gemma):
    return gemma.forward(gemma.encode(PROMPT), residuals=True)


def test_the_lens_reads_every_layer_at_the_last_position(gemma, translation):
    lens = model_reading.logit_lens(gemma, translation.H)
    L = gemma.config.n_layers
    assert lens.top_ids.shape == (L + 1, model_reading.TOP)
    for layer in (0, 6, 13, L):
        h = translation.H[layer][-1].astype(np.float64)
        normed = h / math.sqrt(float(np.mean(h * h)) + gemma.config.eps) * gemma.final_norm
        logits = gemma.E.astype(np.float64) @ normed
        p = np.exp(logits - logits.max())
        p /= p.sum()
        order = np.argsort(-logits)
        assert list(lens.top_ids[layer]) == list(order[: model_reading.TOP]), layer
        np.testing.assert_allclose(
            lens.top_p[layer], p[order[: model_reading.TOP]], rtol=1e-3, atol=1e-6
        )
        assert lens.rank[layer] == 1 + int(np.sum(logits > logits[lens.answer])), layer
        assert lens.p[layer] == pytest.approx(p[lens.answer], rel=1e-3, abs=1e-9)
    assert lens.answer == int(np.argmax(translation.logits[-1]))
    assert gemma.pieces([lens.answer]) == ["山"]  # the model's own answer, read at the end


def test_the_lens_map_is_each_rows_first_piece(gemma, translation):
    lens = model_reading.logit_lens(gemma, translation.H, positions=3)
    n = len(translation.ids)
    assert lens.map_ids.shape == (gemma.config.n_layers + 1, 3) and lens.map_from == n - 3
    for layer in (2, 15, 18):
        logits = gemma.lens(translation.H[layer][n - 3 :])
        np.testing.assert_array_equal(lens.map_ids[layer], np.argmax(logits, axis=-1))
        p = np.exp(logits - logits.max(axis=-1, keepdims=True))
        first = p.max(axis=-1) / p.sum(axis=-1)
        np.testing.assert_allclose(lens.map_p[layer], first, rtol=1e-4)


def test_the_parts_of_the_stream_add_up_to_the_answers_logit(gemma, translation):
    answer = int(np.argmax(translation.logits[-1]))
    parts = model_reading.residual_parts(gemma, translation, answer)
    assert parts.logit == translation.logits[-1, answer]
    assert abs(parts.total - parts.logit) <= 1e-3
    # each part by hand: the last row's own rms, the addition's last row through it
    last = translation.H[-1][-1].astype(np.float64)
    rms = math.sqrt(float(np.mean(last * last)) + gemma.config.eps)
    attention_12 = translation.added[12][0][-1].astype(np.float64)
    by_hand = float(np.sum(attention_12 / rms * gemma.final_norm * gemma.E[answer]))
    assert parts.attention[12] == pytest.approx(by_hand, rel=1e-6)
    # and the parts are what the final norm really reads: the logit of the whole sum
    whole = rms_norm(translation.H[-1][-1:], gemma.final_norm, gemma.config.eps) @ gemma.E[answer]
    assert parts.total == pytest.approx(float(whole[0]), abs=1e-3)


def _scores_by_loops(A, ids):
    """Each score of one head's map, with plain loops over queries and keys."""
    n = len(ids)
    previous = sum(A[i][i - 1] for i in range(1, n)) / (n - 1)
    sink = sum(A[i][0] for i in range(1, n)) / (n - 1)
    local = sum(sum(A[i][j] for j in range(max(0, i - 3), i + 1)) for i in range(1, n)) / (n - 1)
    copied = []
    for i in range(n):
        keys = [j for j in range(1, i + 1) if ids[j - 1] == ids[i]]
        if keys:
            copied.append(sum(A[i][j] for j in keys))
    induction = sum(copied) / len(copied) if copied else 0.0
    return {"previous": previous, "induction": induction, "sink": sink, "local": local}


def test_head_scores_are_loops_over_random_causal_maps():
    rng = np.random.default_rng(3)
    ids = [2, 7, 8, 9, 7, 8, 5, 9, 7]  # 7 and 8 and 9 come again
    n = len(ids)
    layers = []
    for _ in range(2):
        S = rng.normal(size=(3, n, n)) * 2
        S[:, np.triu(np.ones((n, n), dtype=bool), 1)] = -np.inf
        A = np.exp(S - S.max(axis=-1, keepdims=True))
        layers.append(A / A.sum(axis=-1, keepdims=True))
    scores = model_reading.head_scores(layers, ids)
    for layer in range(2):
        for head in range(3):
            expected = _scores_by_loops(layers[layer][head].tolist(), ids)
            for name in model_reading.SCORES:
                assert scores[name][layer, head] == pytest.approx(expected[name]), name


def test_the_copies_halves_leave_out_each_copys_first_piece_with_or_without_a_bos():
    """Loss t predicts piece t + 1; each loss here is the index of the piece it predicts. Two
    copies of k = 5 pieces: after a <bos> (pieces 1-5 and 6-10), the halves average the losses
    for pieces 2-5 and 7-10; without (SmolLM2: pieces 0-4 and 5-9), for 1-4 and 6-9."""
    k = 5
    with_bos = np.arange(1, 2 * k + 1, dtype=float)  # 2k losses
    without = np.arange(1, 2 * k, dtype=float)  # 2k − 1 losses
    assert model_reading.copy_halves(with_bos) == (np.mean([2, 3, 4, 5]), np.mean([7, 8, 9, 10]))
    assert model_reading.copy_halves(without) == (np.mean([1, 2, 3, 4]), np.mean([6, 7, 8, 9]))


def test_a_repeated_random_sequence_and_its_loss(gemma):
    ids = model_reading.repeated_tokens(gemma, seed=0)
    k = model_reading.REPEAT_LENGTH
    assert len(ids) == 2 * k + 1 and ids[0] == gemma.tokenizer.bos
    assert ids[1 : k + 1] == ids[k + 1 :] and len(set(ids[1 : k + 1])) == k
    assert (
        ids
        == model_reading.repeated_tokens(gemma, seed=0)
        != model_reading.repeated_tokens(gemma, seed=1)
    )
    run = gemma.forward(ids)
    loss = model_reading.losses(run.logits, ids)
    for t in (0, 5, k + 3):  # −log softmax by hand
        row = run.logits[t].astype(np.float64)
        expected = -(row[ids[t + 1]] - row.max() - math.log(np.exp(row - row.max()).sum()))
        assert loss[t] == pytest.approx(expected, rel=1e-9, abs=1e-7)  # (float32 exp)
    # the same losses read from the last residual a few rows at a time, with no logits kept
    light = gemma.forward(ids, residuals=True, rows=0)
    assert light.logits.shape == (0, run.logits.shape[1])
    np.testing.assert_allclose(model_reading.losses_of(gemma, light.H[-1], ids), loss, atol=1e-4)
    np.testing.assert_allclose(gemma.forward(ids, rows=1).logits, run.logits[-1:], atol=1e-4)
    first, second = model_reading.copy_halves(loss)
    assert first == pytest.approx(loss[1:k].mean()) and second == pytest.approx(
        loss[k + 1 :].mean()
    )
    assert first > 10 and second < 2  # copying makes the second copy easy
    top = np.unravel_index(np.argmax(model_reading.head_scores(run.A, ids)["induction"]), (18, 4))
    assert top == (5, 1)  # layer 6, head 2 counted from 1: the strongest induction head
