"""A question (core/lessons/questions.py) in the reader's language: its prompt, its choices'
labels and its worked answer. Shared by the room's students and teacher."""

import streamlit as st

from ui.kit.escape import markdown_text
from ui.kit.i18n import t


def prompt(question: dict) -> str:
    return t(f"room.q_{question['kind']}", **question["params"])


LETTERS = "ABCDEFGH"


def labels(question: dict) -> list[str]:
    """Each choice as shown, lettered in the question's one order (the same on every screen, and
    two equal labels stay apart): its literal label (numbers, shapes, tokens) or its translated
    key."""
    return [
        f"{LETTERS[i]}. {label if key is None else t(key)}"
        for i, (label, key) in enumerate(question["choices"])
    ]


def why(question: dict) -> str | None:
    """The reveal's one line of why, in the reader's language (None for a question filed before
    questions had one)."""
    if not question.get("why"):
        return None
    key, params = question["why"]
    return t(key, **params)


def show_answer(question: dict, mine: int | None = None) -> None:
    """The right choice, one line of why, the worked numbers, and whether the reader's own answer
    was right."""
    right = labels(question)[question["answer"]]
    if mine is None:
        st.info(t("room.q_right_answer", answer=markdown_text(right)))
    elif mine == question["answer"]:
        st.success(t("room.q_you_were_right", answer=markdown_text(right)))
    else:
        mine_text = markdown_text(labels(question)[mine])
        st.warning(t("room.q_you_were_off", answer=markdown_text(right), mine=mine_text))
    line = why(question)
    if line:  # (escaped: a token's text is in some of them)
        st.markdown(f"**{t('room.why')}** {markdown_text(line)}")
    if question["worked"]:
        st.code("\n".join(question["worked"]), language=None)


def choose(question: dict, key: str) -> int | None:
    """The choices as one row of radio buttons, none picked at first; the chosen index or None."""
    shown = labels(question)
    return st.radio(
        t("room.q_choose"),
        range(len(shown)),
        format_func=lambda i: shown[i],
        index=None,
        key=key,
        horizontal=True,
    )
