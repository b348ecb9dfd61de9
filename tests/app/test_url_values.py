"""Bad values in a page's own URL (issue 55): each is said in the learner's language, naming it,
the page uses its default for it, and every other value in the URL is kept. A number typed out
of a box's range is said under the box in the learner's language, never Streamlit's English."""

import pytest

from tests.support.app import run_app

ENGLISH = ("outside the allowed range", "Please enter a value")


def _warnings(at) -> str:
    return " ".join(w.value for w in at.warning) + " ".join(e.value for e in at.error)


@pytest.mark.parametrize(
    "page, query, named",
    [
        ("train", {"tr_steps": "abc", "tr_task": "copy"}, "tr_steps=abc"),
        ("train", {"tr_task": "foo", "tr_steps": "200"}, "tr_task=foo"),
        ("masks", {"batch_mask": "nonsense"}, "batch_mask=nonsense"),
        ("positional-encoding", {"pe_pair": "99"}, "pe_pair=99"),
    ],
)
@pytest.mark.parametrize("lang, words", [("zh", "不是本页能用的值"), ("en", "cannot show")])
def test_a_bad_value_is_named_and_the_rest_kept(page, query, named, lang, words):
    at = run_app(page, lang=lang, **query)
    assert not at.exception
    said = _warnings(at)
    assert named in said and words in said, said
    bad = named.split("=")[0]
    assert bad not in at.query_params  # its default is used
    for key, value in query.items():
        if key != bad:
            assert at.query_params[key] == value  # the rest of the link is kept


def test_train_sizes_out_of_range_are_said_with_the_number_used():
    at = run_app("train", lang="zh", tr_layers="-1", tr_task="copy")
    assert not at.exception
    said = _warnings(at)
    assert "-1 不在 1 到 3 之间，本页改用 1" in said, said
    assert at.query_params["tr_task"] == "copy"
    assert not any(words in said for words in ENGLISH)


def test_sizes_the_heads_do_not_divide_name_both_sizes():
    """The reviewed case: d_model = 7 with 3 heads was answered with "d_model = 64". 7 is below
    the box's range: said, with the 8 the page uses; then 8 split into 3 heads is said."""
    at = run_app("train", lang="en", tr_d_model="7", tr_heads="3")
    assert not at.exception
    said = _warnings(at)
    assert "7 is outside 8–128: the page uses 8" in said, said
    assert "d_model = 8 cannot be split evenly into 3 heads" in said and "64" not in said


def test_a_size_off_the_boxs_step_is_said_with_the_nearest_one():
    at = run_app("train", lang="zh", tr_d_model="18", tr_heads="2")
    assert not at.exception
    said = _warnings(at)
    assert "18 不是 8、8 + 8……直到 128 中的一个，本页改用 16" in said, said


@pytest.mark.parametrize("off", ["99.9", "abc", "6.2,99.1"])
def test_inside_says_heads_it_does_not_have(gemma, off):
    at = run_app("inside", lang="zh", off=off, in_on="prompt")
    assert not at.exception
    assert f"off={off}" in _warnings(at)
    assert at.query_params["in_on"] == "prompt"  # the rest kept
    assert "off" not in at.query_params and at.multiselect(key="in_off").value == []


def test_generate_says_a_layer_it_does_not_have(gemma):
    at = run_app("generate", lang="en", gen_layer="40", gen_t="0.5")
    assert not at.exception
    assert "gen_layer=40" in _warnings(at)
    assert at.selectbox(key="gen_layer").value == 17 and at.slider(key="gen_t").value == 0.5
