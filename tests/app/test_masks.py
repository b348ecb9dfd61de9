"""The masks page: the padded batch, zeroed weights, empty rows, two-colour masks with a legend,
and the all-masked row's note in both languages; and every number it prints (the masks, the
masked scores with their −∞ cells, A, the row sums, the wrong order) against the masks written
from their definitions and the per-head oracle (tests/support/oracles.py), never the core."""

import re

import numpy as np
import pytest

from tests.support.app import chart_titled, charts, decode, grids, page_text, run_app
from tests.support.numbers import (
    app_oracle,
    assert_masked_cells,
    assert_printed,
    chart_keyed,
    numbers,
)
from tests.support.oracles import reference
from ui.kit.i18n import DEFAULT_BATCH, t


def test_masks_page_pads_the_batch_and_zeroes_masked_weights():
    at = run_app("masks", lang="en")
    assert not at.exception
    assert "X is [3 × 5 × 8]" in page_text(at)  # lengths 5, 3, 1 padded to 5
    at.selectbox(key="batch_sentence").set_value(1).run()
    A = decode(chart_titled(at, "A")["data"][0]["z"])  # masked cells are NaN (drawn grey)
    assert np.isnan(A[:, 3:]).all()  # keys 3, 4 are padding
    assert np.isnan(A[0, 1:]).all()  # causal: token 0 sees only itself
    np.testing.assert_allclose(np.nansum(A, axis=1), 1.0, atol=1e-5)
    wrong = decode(chart_titled(at, "Wrong")["data"][0]["z"])
    assert np.nansum(wrong, axis=1)[0] < 0.99  # masking after the softmax loses weight


def test_an_empty_sentence_in_the_batch_gives_zero_rows_not_nan():
    at = run_app("masks", lang="zh")
    at.toggle(key="batch_empty").set_value(True).run()
    at.selectbox(key="batch_sentence").set_value(3).run()
    assert not at.exception
    assert any("没有真实 token" in w.value for w in at.warning)
    text = np.asarray(chart_titled(at, "A")["data"][1]["text"], dtype=object)
    assert (text == "0").all()  # every cell masked, every weight exactly 0


def test_masks_are_two_colours_with_a_legend_and_no_english_mask_in_chinese():
    at = run_app("masks", lang="zh", base=1)
    assert not at.exception
    masks = [spec for spec in charts(at) if spec["data"][0].get("showscale") is False]
    assert len(masks) == 3
    for spec in masks:
        assert len({colour for _, colour in spec["data"][0]["colorscale"]}) == 2
        keys = [trace["name"] for trace in spec["data"] if trace.get("showlegend")]
        assert keys == ["可见（1）", "被遮住（0）"]
    text = page_text(at) + " ".join(spec["layout"]["title"]["text"] for spec in charts(at))
    assert not re.search(r"mask", text, re.IGNORECASE), text
    assert "句子 2 的三个掩码" in text  # the second sentence, numbered from 1
    table = grids(at)[0]
    assert list(table.columns[1:]) == ["1", "2", "3", "4", "5"]
    assert list(table.index) == ["1", "2", "3"]
    options = at.selectbox(key="batch_sentence").options
    assert options[0].startswith("1 · ")


def test_an_all_masked_row_explains_nan_and_the_zero_convention_in_both_languages():
    for lang, words in (("en", ("0 by 0", "NaN", "convention")), ("zh", ("0/0", "NaN", "约定"))):
        at = run_app("masks", lang=lang)
        at.toggle(key="batch_empty").set_value(True).run()
        at.selectbox(key="batch_sentence").set_value(3).run()
        assert not at.exception
        warning = " ".join(w.value for w in at.warning)
        assert all(word in warning for word in words), warning


def _batch_oracle(sentences, kind: str, d_model: int = 8, n_heads: int = 2):
    """The batch as the page should show it, from its inputs alone: each sentence's X (its
    tokens' table rows plus PE by formula) padded with zero rows to the longest, the three masks
    written from their definitions (padding: key j is a real token; causal: j ≤ i; both: the
    two), and every head's S, A by the per-head oracle under the chosen one."""
    own = [app_oracle(s, d_model, n_heads) if s.strip() else None for s in sentences]
    lengths = [0 if o is None else len(o.tokens) for o in own]
    b, n = len(sentences), max(1, *lengths)
    X = np.zeros((b, n, d_model))
    for s, o in enumerate(own):
        if o is not None:
            X[s, : lengths[s]] = o.X
    real_key = np.arange(n)[None, :] < np.array(lengths)[:, None]  # [b, n]
    masks = {
        "padding": np.broadcast_to(real_key[:, None, :], (b, n, n)),
        "causal": np.broadcast_to(np.tril(np.ones((n, n), bool)), (b, n, n)),
    }
    masks["both"] = masks["padding"] & masks["causal"]
    W = next(o for o in own if o is not None).W
    ref = reference(X, W, n_heads, masks[kind])  # [b, h, n, n]
    tokens = [
        ([] if o is None else list(o.tokens)) + ["<pad>"] * (n - length)
        for o, length in zip(own, lengths, strict=True)
    ]
    return ref, masks, tokens, lengths


def _softmax_then_zero(scaled, allowed):
    """The wrong order, written out: a softmax over every key, then the hidden weights zeroed."""
    e = np.exp(scaled - scaled.max(axis=-1, keepdims=True))
    return np.where(allowed, e / e.sum(axis=-1, keepdims=True), 0.0)


def _row_sums(spec) -> list[float]:
    """The 'Σ=…' notes printed right of each row of an A heatmap."""
    notes = [a["text"] for a in spec["layout"]["annotations"] if a["text"].startswith("Σ=")]
    return [numbers(note)[0] for note in notes]


MASK_CASES = [
    ({"lang": "en", "decimals": 3, "base": 0}, False),
    ({"lang": "zh", "base": 1}, False),
    ({"lang": "en", "base": 0}, True),  # with an empty fourth sentence
]


@pytest.mark.parametrize("query, empty", MASK_CASES, ids=["en-3-decimals", "zh-from-1", "empty"])
@pytest.mark.parametrize("kind", ["padding", "causal", "both"])
def test_every_sentence_prints_its_masks_masked_scores_and_weights_as_the_oracle(
    query, empty, kind
):
    """For each mask and each sentence of the batch: the three mask panels are the masks written
    from their definitions; S / √d_k + mask prints the oracle's scaled scores where a key is
    allowed and −∞ exactly where it is not; A and the 'right' panel print the oracle's weights,
    0 on the hidden cells, with each row's sum beside it (all zero for an empty sentence); the
    'wrong' panel is a softmax over every key with the hidden weights zeroed afterwards."""
    at = run_app("masks", **query)
    lang, dec, base = query["lang"], query.get("decimals", 2), query.get("base", 1)
    sentences = tuple(DEFAULT_BATCH[lang].splitlines()) + (("",) if empty else ())
    if empty:
        at.toggle(key="batch_empty").set_value(True).run()
    at.radio(key="batch_mask").set_value(kind).run()
    assert not at.exception
    ref, masks, tokens, lengths = _batch_oracle(sentences, kind)
    b, n = len(sentences), len(tokens[0])
    assert t("masks.padded", lang, b=b, n=n, d=8) in [h.value for h in at.subheader]
    assert grids(at)[0].values.tolist() == [
        [length, *row] for length, row in zip(lengths, tokens, strict=True)
    ]
    for s in range(b):
        at.selectbox(key="batch_sentence").set_value(s).run()
        what = f"{kind}, sentence {s}"
        for name, M in masks.items():
            spec = chart_keyed(at, f"mk_mask_{name}")
            np.testing.assert_array_equal(decode(spec["data"][0]["z"]), M[s].astype(float))
            assert (np.asarray(spec["data"][0]["text"]) == np.where(M[s], "1", "0")).all(), name
        hidden = ~masks[kind][s]
        S_masked = chart_keyed(at, "mk_masked")
        assert_masked_cells(S_masked, ref["S_scaled"][s, 0], hidden, "−∞", dec, f"S, {what}")
        A = ref["A"][s, 0]
        for key in ("mk_weights", "mk_right"):
            spec = chart_keyed(at, key)
            assert_masked_cells(spec, A, hidden, "0", dec, f"{key}, {what}")
            assert_printed(_row_sums(spec), A.sum(axis=1), dec, f"{key} row sums, {what}")
        assert not lengths[s] or np.allclose(A.sum(axis=1), 1.0)  # the oracle: a real sentence
        wrong = _softmax_then_zero(ref["S_scaled"][s, 0], ~hidden)
        spec = chart_keyed(at, "mk_wrong")
        assert_masked_cells(spec, wrong, hidden, "0", dec, f"wrong order, {what}")
        assert_printed(_row_sums(spec), wrong.sum(axis=1), dec, f"wrong row sums, {what}")
        titles = [h.value for h in at.subheader]
        assert t("masks.masks_title", lang, s=s + base) in titles, titles  # numbered from base
        assert t("masks.result_title", lang, head=base) in titles, titles  # head 0
