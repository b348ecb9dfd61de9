"""jieba's dictionary as sorted hash and count arrays (core/word_freq.py) answers every lookup as
jieba's own dict does, cuts sentences the same, and is read back from where it was kept: checked
against a fresh jieba Tokenizer that keeps its dict."""

import random

import jieba
import pytest

from core import tokenize, word_freq
from core.word_freq import WordFreq


@pytest.fixture(scope="module")
def own():
    """A jieba tokenizer of its own, with its dictionary as the dict jieba builds."""
    tokenizer = jieba.Tokenizer()
    tokenizer.initialize()
    assert isinstance(tokenizer.FREQ, dict)
    return tokenizer


def test_every_lookup_answers_as_the_dict(own):
    compact = WordFreq.of(own.FREQ)
    assert len(compact) == len(own.FREQ)
    words = random.Random(0).sample(sorted(own.FREQ), 5000)
    for word in words:
        assert compact.get(word) == own.FREQ[word] == compact[word] and word in compact
    for missing in ("注意力机制矩阵", "qqqq", "", "的的的的", "He"):
        assert missing not in own.FREQ  # (a stretch that is no word's beginning)
        assert compact.get(missing) is None and missing not in compact
        assert compact.get(missing, 1) == 1
        with pytest.raises(KeyError):
            compact[missing]
    assert "效" in compact  # (Python's str hash takes "He" and "效" for one)
    hashes, counts = compact.arrays()
    assert len(set(hashes.tolist())) == len(compact)  # no two words share a key
    assert hashes.nbytes + counts.nbytes < 10 << 20  # 8 MB, not jieba's 71


def test_the_arrays_are_kept_and_read_back(own, tmp_path):
    first, again = jieba.Tokenizer(), jieba.Tokenizer()
    assert word_freq.give_to(first, tmp_path) is False  # built from jieba's load, then kept
    assert [path.suffix for path in tmp_path.iterdir()] == [".npz"]  # (no half-written file)
    assert word_freq.give_to(again, tmp_path) is True  # read back
    assert again.total == first.total == own.total and again.initialized
    for tokenizer in (first, again):
        assert tokenizer.lcut(SENTENCES[0]) == own.lcut(SENTENCES[0])
    kept = next(tmp_path.iterdir())
    kept.write_bytes(kept.read_bytes()[:100])  # cut short: built again, not a failure
    broken = jieba.Tokenizer()
    assert word_freq.give_to(broken, tmp_path) is False
    assert broken.lcut(SENTENCES[1]) == own.lcut(SENTENCES[1])


SENTENCES = (
    "今天天气很好，我们去公园散步吧",
    "自注意力机制是Transformer的核心",
    "研究生命的起源",
    "我爱你",
    "南京市长江大桥",
    "小明硕士毕业于中国科学院计算所，后在日本京都大学深造",
    "每个词都看一眼其他所有的词，再决定听谁的",
    "Hello, world!",
    "I love you 我爱你",
)


@pytest.mark.parametrize("sentence", SENTENCES)
def test_the_app_cuts_as_jieba_does(own, sentence):
    assert tokenize(sentence, mode="jieba") == [t for t in own.lcut(sentence) if t.strip()]
