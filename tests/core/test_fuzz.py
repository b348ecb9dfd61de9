"""Fuzzing the core's entry points: anything a learner can type or a link can carry."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core
from core.tokens import clean

HOSTILE = [
    "<b>",
    "<script>alert(1)</script>",
    "javascript:alert(1)",
    "$x^2$",
    "**md**",
    "\u200b",
    "\u200d",
    "\x07",
    "\x00",
    "\u202e",
    "😀",
    "שלום",
    "مرحبا",
    "e\u0301",
    "这部电影",
    " ",
    "\t",
    "\n",
    "，",
    "ＡＢＣ",
]
texts = st.lists(st.one_of(st.sampled_from(HOSTILE), st.text(max_size=8)), max_size=12).map("".join)


@settings(max_examples=200, deadline=None)
@given(sentence=texts, mode=st.sampled_from(core.MODES))
def test_tokenize_returns_clean_tokens_or_a_learner_error(sentence, mode):
    try:
        tokens = core.tokenize(sentence, mode, max_tokens=10_000, max_chars=10_000)
    except core.InputError as error:
        assert error.code == "empty_sentence"
        assert not clean(sentence).strip()
        return
    assert tokens and all(tokens)
    assert not any(ch.isspace() for token in tokens for ch in token)
    assert core.count_invisible("".join(tokens)) == 0
    # nothing but whitespace and invisible characters is lost, in order
    assert "".join(tokens) == "".join(clean(sentence).split())


def test_a_100000_character_sentence_is_refused_before_tokenizing(monkeypatch):
    import core.tokens

    def jieba_must_not_run():
        raise AssertionError("the length check must come before jieba")

    monkeypatch.setattr(core.tokens, "_load_jieba", jieba_must_not_run)
    with pytest.raises(core.InputError) as error:
        core.tokenize("我" * 100_000, max_chars=5000)
    assert error.value.code == "too_long" and error.value.params == {"n": 100_000, "limit": 5000}


def test_invisible_characters_are_dropped_and_counted():
    assert core.tokenize("a\u200bb c\x07") == ["ab", "c"]
    assert core.count_invisible("a\u200bb c\x07") == 2
    assert core.tokenize("cafe\u0301") == ["café"]  # combining accent composed
    with pytest.raises(core.InputError):
        core.tokenize("\u200b\u200d\x00")


finite = st.floats(-1e3, 1e3, allow_nan=False, width=64)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(1, 6), heads=st.sampled_from([1, 2]), width=st.integers(1, 3))
def test_attention_never_makes_nan_from_finite_input(data, n, heads, width):
    d = heads * width
    shape = {"W_Q": (d, d), "W_K": (d, d), "W_V": (d, d), "W_O": (d, d)}
    draw = data.draw
    X = np.array(draw(st.lists(finite, min_size=n * d, max_size=n * d))).reshape(n, d)
    W = core.Weights(
        **{
            k: np.array(draw(st.lists(finite, min_size=s[0] * s[1], max_size=s[0] * s[1]))).reshape(
                s
            )
            for k, s in shape.items()
        }
    )
    mask = draw(st.sampled_from([None, "causal", "random"]))
    if mask == "causal":
        mask = core.causal_mask(n)
    elif mask == "random":
        mask = np.array(draw(st.lists(st.booleans(), min_size=n * n, max_size=n * n))).reshape(n, n)
    with np.errstate(over="ignore", invalid="ignore"):
        try:
            trace = core.attention(X, W, heads, mask)
        except core.InputError:
            return
    assert not np.isnan(trace.weights).any()
    finite_scores = np.isfinite(trace.scaled).all()
    if finite_scores:  # scores up to ~1e12 stay finite in float64: so must everything after
        assert np.isfinite(trace.weights).all() and not np.isnan(trace.output).any()


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_non_finite_input_is_an_input_error_not_nan(value):
    W = core.init_weights(core.AttentionConfig(d_model=4, n_heads=2))
    X = np.ones((3, 4))
    X[1, 2] = value
    with pytest.raises(core.InputError) as error:
        core.attention(X, W, 2)
    assert error.value.code == "non_finite"
