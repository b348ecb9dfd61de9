"""Show an InputError to the learner in their language, never as a traceback."""

import streamlit as st

import core
from ui.i18n import error_text, t


def _keep_first_tokens(limit: int) -> None:
    """Cut the sentence in the sidebar to its first ``limit`` tokens (a button's callback)."""
    mode = st.session_state.get("mode", "auto")
    tokens = core.tokenize(st.session_state["sentence"], mode)[:limit]
    st.session_state["sentence"] = ("" if mode == "char" else " ").join(tokens)


def show_input_error(error: core.InputError) -> None:
    st.error(error_text(error), icon=":material/error:")
    if error.code == "too_many_tokens":
        limit = error.params["limit"]
        st.button(
            t("cut_tokens", limit=limit),
            on_click=_keep_first_tokens,
            args=(limit,),
            key="cut_tokens",
            type="primary",
        )


def trace_or_stop(settings):
    """The sidebar sentence's trace; on bad input, the message and nothing more on this page."""
    from ui.compute import trace_for

    try:
        return trace_for(settings)
    except core.InputError as error:
        show_input_error(error)
        st.stop()
