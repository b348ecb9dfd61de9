"""The masks page: the padded batch, zeroed weights, empty rows, two-colour masks with a legend,
and the all-masked row's note in both languages."""

import re

import numpy as np

from tests.support.app import chart_titled, charts, decode, page_text, run_app


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
        assert [trace["name"] for trace in spec["data"][1:]] == ["可见（1）", "被遮住（0）"]
    text = page_text(at) + " ".join(spec["layout"]["title"]["text"] for spec in charts(at))
    assert not re.search(r"mask", text, re.IGNORECASE), text
    assert "句子 2 的三个掩码" in text  # the second sentence, numbered from 1
    table = at.dataframe[0].value
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
