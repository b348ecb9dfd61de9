"""Escape token text for every place it is drawn: Plotly labels and Streamlit markdown."""

import html
import re

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~<>$:&])")


def plotly_text(token: str) -> str:
    """Token text that Plotly shows literally: HTML tags and $...$ (LaTeX) are not interpreted."""
    return html.escape(str(token), quote=False).replace("$", "&#36;")


def markdown_text(token: str) -> str:
    """Token text that st.markdown shows literally (no emphasis, links, HTML or LaTeX)."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", str(token))
