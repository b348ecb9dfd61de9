"""Show an InputError to the learner in their language, never as a traceback."""

import streamlit as st

import core
from ui.kit.i18n import error_text, t


def _keep_first_characters(box: str, mode: str, limit: int) -> None:
    """Cut the text box ``box`` to its first ``limit`` characters (a button's callback)."""
    st.session_state[box] = st.session_state[box][:limit]


def _keep_first_tokens(box: str, mode: str, limit: int) -> None:
    """Cut the text box ``box`` to its first ``limit`` tokens (a button's callback)."""
    tokens = core.tokenize(st.session_state[box], mode)[:limit]
    st.session_state[box] = ("" if mode == "char" else " ").join(tokens)


CUTS = {
    "too_many_tokens": ("shell.cut_tokens", _keep_first_tokens),
    "too_long": ("shell.cut_chars", _keep_first_characters),
}


def show_input_error(error: core.InputError, box: str | None = None, mode: str = "auto") -> None:
    """The message; for a sentence that is too long, a button that shortens the text box whose
    session key is ``box`` (tokenized with ``mode``), when the sentence came from one box."""
    st.error(error_text(error), icon=":material/error:")
    if error.code in CUTS and box in st.session_state:
        label, action = CUTS[error.code]
        limit = error.params["limit"]
        st.button(
            t(label, limit=limit),
            on_click=action,
            args=(box, mode, limit),
            key=f"{label.partition('.')[2]}_{box}",  # e.g. cut_tokens_sentence
            type="primary",
        )


def show_unexpected_error(error: Exception) -> None:
    """A bug on a page: an apology and what to do, with the details folded away for a report."""
    import traceback

    st.error(t("shell.unexpected_error"), icon=":material/sentiment_dissatisfied:")
    with st.expander(t("shell.error_details")):
        st.code("".join(traceback.format_exception(error)), language=None)
