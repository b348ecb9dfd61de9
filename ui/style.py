"""Page styling: a compact layout, and a larger-text mode for projectors."""

import base64
from pathlib import Path

import streamlit as st

# The favicon as a data URL, read once: given a file path, Streamlit would read it and register it
# with its media manager on every run of every session.
FAVICON = "data:image/png;base64," + base64.b64encode(
    (Path(__file__).resolve().parents[1] / "assets" / "icon.png").read_bytes()
).decode("ascii")

BASE_CSS = """
<style>
.block-container {padding-top: 3.2rem; padding-bottom: 2rem; max-width: 1400px;}
[data-testid="stSidebar"] h3 {margin-top: 0.6rem;}
</style>
"""
PRESENTATION_CSS = """
<style>
html, body, [data-testid="stAppViewContainer"] {font-size: 21px;}
.stMarkdown p, .stMarkdown li, .stCaption {font-size: 1.15rem !important;}
.block-container {padding-top: 4.2rem; padding-bottom: 1rem;}
[data-testid="stVerticalBlock"] {gap: 0.45rem;}
.stMarkdown .katex {font-size: 1.05em;}
</style>
"""


def apply_style(presentation: bool) -> None:
    st.html(BASE_CSS + (PRESENTATION_CSS if presentation else ""))
