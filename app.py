"""Self-Attention, Step by Step: page setup, the shared sidebar, and the pages."""

from pathlib import Path

import streamlit as st

from ui.i18n import t
from ui.settings import sidebar
from ui.style import apply_style

HERE = Path(__file__).parent

st.set_page_config(
    page_title="Self-Attention, Step by Step · 自注意力",
    page_icon=str(HERE / "assets" / "icon.png"),
    layout="wide",
)
settings = sidebar()
st.session_state["_settings"] = settings
apply_style(settings.presentation)

pages = [
    st.Page(
        HERE / "pages/walkthrough.py",
        title=t("page_walkthrough"),
        icon=":material/stairs:",
        default=True,
    ),
    st.Page(
        HERE / "pages/loop-vs-matrix.py",
        title=t("page_loop"),
        icon=":material/repeat:",
        url_path="loop-vs-matrix",
    ),
    st.Page(
        HERE / "pages/hand-check.py",
        title=t("page_hand"),
        icon=":material/edit_note:",
        url_path="hand-check",
    ),
]
st.navigation(pages, position="top").run()
