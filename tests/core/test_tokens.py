"""Tokenizer modes on spaced and unspaced Chinese, English with punctuation, and mixed text."""

from collections import Counter

import pytest

import core


def test_spaced_chinese_splits_on_spaces():
    assert core.tokenize("这 部 电影 很 好看") == ["这", "部", "电影", "很", "好看"]


def test_unspaced_chinese_goes_through_jieba():
    assert core.tokenize("我喜欢你") == ["我", "喜欢", "你"]
    tokens = core.tokenize("这部电影很好看")
    assert "".join(tokens) == "这部电影很好看" and "电影" in tokens and "好看" in tokens


def test_word_order_changes_order_not_tokens():
    assert Counter(core.tokenize("我喜欢你")) == Counter(core.tokenize("你喜欢我"))
    assert core.tokenize("我喜欢你") != core.tokenize("你喜欢我")


def test_english_with_punctuation():
    assert core.tokenize("Hello, world!") == ["Hello,", "world!"]  # auto: there are spaces
    assert core.tokenize("Hello, world!", "jieba") == ["Hello", ",", "world", "!"]
    assert core.tokenize("Hi,there!") == ["Hi", ",", "there", "!"]  # auto without spaces


def test_mixed_chinese_and_latin_without_spaces():
    assert core.tokenize("我爱NLP!你呢？") == ["我", "爱", "NLP", "!", "你", "呢", "？"]


def test_char_and_space_modes():
    assert core.tokenize("好 看", "char") == ["好", "看"]
    assert core.tokenize("电影很好看", "space") == ["电影很好看"]
    assert core.tokenize("  a\tb\n c ", "space") == ["a", "b", "c"]


@pytest.mark.parametrize("sentence", ["", "   ", "\t\n", "\u3000"])
def test_empty_sentence_is_an_input_error(sentence):
    with pytest.raises(core.InputError) as error:
        core.tokenize(sentence)
    assert error.value.code == "empty_sentence"


def test_token_limit():
    with pytest.raises(core.InputError) as error:
        core.tokenize("a b c d e", max_tokens=4)
    assert error.value.code == "too_many_tokens"
    assert error.value.params == {"n": 5, "limit": 4}
    assert core.tokenize("a b c d", max_tokens=4) == ["a", "b", "c", "d"]


def test_unknown_mode():
    with pytest.raises(core.InputError) as error:
        core.tokenize("a b", mode="bpe")
    assert error.value.code == "unknown_mode"
