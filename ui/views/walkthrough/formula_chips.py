"""The whole formula in one line above the walkthrough, each symbol a chip that opens its step:

O = softmax( Q Kᵀ / √d_k + M ) V
"""

import streamlit as st

from ui.kit.i18n import t

PARTS = (  # (text, the step it opens)
    ("O =", "av"),
    ("softmax(", "softmax"),
    ("Q", "qkv"),
    ("Kᵀ", "scores"),
    ("/ √d_k", "scaled"),
    ("+ M )", "mask"),
    ("V", "av"),
)


def _go() -> None:
    chosen = st.session_state.get("formula_pick")
    if chosen is not None:
        st.session_state["step"] = PARTS[chosen][1]


def show(current: str) -> None:
    """The formula as chips; the chip of the current step is selected."""
    here = [i for i, (_, step) in enumerate(PARTS) if step == current]
    st.session_state["formula_pick"] = here[-1] if here else None
    st.pills(
        t("walkthrough.formula_line"),
        range(len(PARTS)),
        format_func=lambda i: PARTS[i][0],
        key="formula_pick",
        on_change=_go,
    )
