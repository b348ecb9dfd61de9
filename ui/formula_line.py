"""The whole formula in one line above the walkthrough, each symbol a button to its step:

O = softmax( Q Kᵀ / √d_k + M ) V
"""

import streamlit as st

from ui.i18n import t

PARTS = (  # (text, the step it opens; None: plain text)
    ("O =", "av"),
    ("softmax(", "softmax"),
    ("Q", "qkv"),
    ("Kᵀ", "scores"),
    ("/ √d_k", "scaled"),
    ("+ M", "mask"),
    (")", None),
    ("V", "av"),
)


def _go(step: str) -> None:
    st.session_state["step"] = step


def show(current: str) -> None:
    """One compact row: the formula, the current step's symbols highlighted."""
    with st.container(horizontal=True, gap=None, vertical_alignment="center", key="formula_line"):
        st.caption(t("formula_line"))
        for index, (text, step) in enumerate(PARTS):
            if step is None:
                st.markdown(f"**{text}**")
                continue
            st.button(
                text,
                key=f"formula_{index}",
                type="primary" if step == current else "tertiary",
                on_click=_go,
                args=(step,),
                help=t(f"title_{step}"),
            )
