"""Streamlit's check for a leading emoji, remembered label by label.

Streamlit looks for a leading emoji in each option of a segmented control, pills or a button
group, and in each alert's text, with ``re.search`` on its compiled emoji pattern. For any label
that is not plain ASCII (every Chinese one, and QKᵀ or ÷√d_k in English), CPython hashes that
pattern's whole compiled code on each call: about 60 µs, some 25 times a run for the same few
labels, 7% of a student's rerun. The check is a pure function of the label, so ``remember()``
keeps each label's answer.
"""

import functools

from streamlit import string_util


def remember() -> None:
    """Make string_util.extract_leading_emoji remember its answers (once per process).
    Streamlit's extract_leading_icon, which the widgets and alerts call, looks it up there."""
    check = string_util.extract_leading_emoji
    if not hasattr(check, "cache_info"):
        string_util.extract_leading_emoji = functools.lru_cache(maxsize=4096)(check)
