"""The lines of core/reference.py that compute a step, read from its source at run time: the page
shows the code that computed its numbers."""

import html
import inspect
import re
from functools import lru_cache

import streamlit as st

from core import reference
from ui.kit.i18n import current_lang, t
from ui.kit.session import base

ASSIGNMENT = re.compile(r"^\s*(\w+) = ")
MARK = '<mark style="background:#fde68a;color:inherit;padding:0 2px;border-radius:3px">'


@lru_cache(maxsize=1)
def _source() -> tuple[str, ...]:
    return tuple(inspect.getsource(reference.attention).splitlines())


def lines_for(symbols) -> list[str]:
    """The lines of reference.attention that assign one of ``symbols``, in order, dedented."""
    return [
        line.strip()
        for line in _source()
        if (match := ASSIGNMENT.match(line)) and match.group(1) in symbols
    ]


def code_html(lines, symbols) -> str:
    """The lines as a code block, the step's symbols marked (the source is escaped first)."""
    word = re.compile(r"\b(" + "|".join(map(re.escape, symbols)) + r")\b")
    body = "\n".join(word.sub(rf"{MARK}\1</mark>", html.escape(line)) for line in lines)
    style = (
        "margin:0 0 0.75rem 0;padding:0.6rem 0.8rem;background:#f6f7f9;border-radius:6px;"
        "font-size:0.85rem;line-height:1.5;overflow-x:auto"
    )
    return f'<pre style="{style}"><code>{body}</code></pre>'


# The code's comments that say more than a shape or a formula, in the reader's language: shown
# under the code for a reader of any language but English, which the comments are written in.
COMMENT_NOTES = {"A": "walkthrough.code_note_A"}


def show(symbols) -> None:
    """The caption and the lines that compute ``symbols`` (nothing when no line does), and what
    their comments say, translated."""
    lines = lines_for(symbols)
    if lines:
        st.caption(t("walkthrough.code_caption"))
        if base():  # the page counts from 1, the code (as Python does) from 0: said where both are
            st.caption(t("walkthrough.code_counts_from_0"))
        st.html(code_html(lines, symbols))
        if current_lang() != "en":
            for symbol in symbols:
                if symbol in COMMENT_NOTES:
                    st.caption(t(COMMENT_NOTES[symbol]))
