"""ui/kit/emoji_check.py: Streamlit's leading-emoji check remembers each label, with the same
answers as Streamlit's own check."""

import re

from streamlit import string_util
from streamlit.emojis import EMOJI_EXTRACTION_REGEX

from ui.kit import emoji_check

LABELS = ["掩码", "QKᵀ", "÷√d_k", "拼接 · W_O", "中文", "🙋 没听懂", "✅ 对了", "plain", ""]


def _streamlits_own(text: str) -> tuple[str, str]:
    """The check as Streamlit writes it (string_util.extract_leading_emoji), inlined here."""
    if not text or text.isascii():
        return "", text
    found = re.search(EMOJI_EXTRACTION_REGEX, text)
    return ("", text) if found is None else (found.group(1), found.group(2))


def test_the_remembered_check_answers_as_streamlits_own():
    emoji_check.remember()
    for label in LABELS * 2:  # the second time from memory
        assert string_util.extract_leading_emoji(label) == _streamlits_own(label), label
    assert string_util.extract_leading_emoji("🙋 没听懂") == ("🙋", "没听懂")


def test_it_is_wrapped_once_and_reached_through_extract_leading_icon():
    emoji_check.remember()
    check = string_util.extract_leading_emoji
    emoji_check.remember()  # app.py calls it on every run: still the one wrapper
    assert string_util.extract_leading_emoji is check
    assert not hasattr(check.__wrapped__, "cache_info")
    before = check.cache_info().hits
    for _ in range(3):
        assert string_util.extract_leading_icon("整个块") == ("", "整个块")  # a widget's path
    assert check.cache_info().hits >= before + 2
