"""The learner's answer on the hand-check page: one row of Q, K, V, S, S/√d_k, A or O typed in,
checked entry by entry on Check; a wrong row names the numbers that are off, then offers a hint
and the whole working as two buttons. The text is in ui/views/hand_check/checkable.py."""

import numpy as np
import streamlit as st

from ui.kit.announce import announce
from ui.kit.choose import selectbox
from ui.kit.escape import markdown_text
from ui.kit.i18n import labeller, t
from ui.kit.number_text import num, row_label
from ui.views.hand_check import text as handcheck
from ui.views.hand_check.checkable import CHECKABLE, expected_row, hint, space, working


def _question(tokens, trace, base: int) -> tuple[str, int, str]:
    """The matrix and row picked and the numbers typed: the question being checked."""
    a, b, c, button = st.columns([1.3, 1, 2, 0.6], vertical_alignment="bottom")
    which = selectbox(
        a,
        t("hand_check.answer_matrix"),
        CHECKABLE,
        index=CHECKABLE.index("A"),
        key="answer_matrix",
        format_func=labeller("hand_check.answer"),
    )
    row = selectbox(
        b,
        t("hand_check.answer_which"),
        range(handcheck.N),
        key="answer_row",
        format_func=lambda i: row_label(i, tokens[i], base),
    )
    k = len(expected_row(trace, which, row))
    typed = c.text_input(t("hand_check.answer_input", k=k), key="answer_text")
    if button.button(t("hand_check.answer_check"), key="answer_check", type="primary"):
        st.session_state["answer_checked"] = (which, row, typed)
    return which, row, typed


def answer(matrices, trace, steps, tokens, settings) -> None:
    """The answer box; after Check, right, wrong (with hint and working) or why it can't say."""
    st.subheader(t("hand_check.your_answer"))
    which, row, typed = _question(tokens, trace, settings.base)
    asked = (which, row, typed)
    if st.session_state.get("answer_checked") != asked:
        announce("answer", "")  # (the next Check is said, even with the same verdict)
        return  # nothing checked yet, or the question or the answer changed since
    if not typed.strip():
        _say(st.info, t("hand_check.answer_empty"))
        return
    expected = expected_row(trace, which, row)
    check = handcheck.check_answer(typed, expected)
    lang = settings.lang
    if check.problem == "count":
        _say(st.warning, t("hand_check.answer_count", **check.detail))
    elif check.problem == "not_a_number":
        _say(st.warning, t("hand_check.answer_nan", text=markdown_text(check.detail["text"])))
    elif check.right:
        ok = t("hand_check.answer_ok", k=len(expected), tol=0.01)
        _say(st.success, t("hand_check.answer_correct") + space(lang) + ok)
    else:
        _say(st.error, _off(check, expected, settings.decimals, lang))
        _more(asked, check, matrices, trace, steps, tokens, settings)


def _say(box, text: str) -> None:
    """The verdict shown, and said by a screen reader where the learner pressed Check (a box
    that arrives with its words in it is not reliably read out)."""
    announce("answer", text.replace("\\", "").replace("\n\n- ", " ").replace("\n- ", "; "))
    box(text)


def _off(check, expected, decimals: int, lang: str) -> str:
    """Which entries are off, and by how much (whole numbers, as Q, K, V and S are here, and
    their differences, without decimals)."""
    p = handcheck.places(np.array([*expected, *check.detail["typed"]]), decimals)
    lines = [
        t(
            "hand_check.answer_off",
            nth=j + 1,  # which number of the typed row: counted from 1 whatever the numbering
            typed=f"{v:g}".replace("-", "−"),  # as typed, not rounded
            expected=num(e, p),
            diff=num(x, p),
        )
        for j, v, e, x in check.wrong
    ]
    heading = t("hand_check.answer_incorrect") + space(lang)
    heading += t("hand_check.answer_wrong", bad=len(check.wrong), k=len(expected))
    return heading + "\n\n" + "\n".join(f"- {line}" for line in lines)


def _more(asked, check, matrices, trace, steps, tokens, settings) -> None:
    """The hint and the whole working, each behind its own button, for this very answer."""
    which, i, _ = asked
    d, base, lang = settings.decimals, settings.base, settings.lang
    with st.container(horizontal=True):
        if st.button(t("hand_check.answer_hint"), key="answer_hint", icon=":material/lightbulb:"):
            st.session_state["answer_hint_for"] = asked
        if st.button(t("hand_check.answer_show_working"), key="answer_working"):
            st.session_state["answer_working_for"] = asked
    if st.session_state.get("answer_hint_for") == asked:
        j, *_ = check.wrong[0]
        text = hint(which, i, j, check.detail["typed"], matrices, trace, base, d, lang)
        st.info(text, icon=":material/lightbulb:")
    if st.session_state.get("answer_working_for") == asked:
        lines = working(which, i, matrices, trace, steps, tokens, d, base, lang)
        with st.container(border=True):
            st.markdown(f"**{lines[0]}**\n\n" + "\n".join(f"- {line}" for line in lines[1:]))
