"""Show an InputError to the learner in their language, never as a traceback."""

import streamlit as st

from ui.i18n import error_text


def show_input_error(error) -> None:
    st.error(error_text(error), icon=":material/error:")
