"""The whole formula in one line above the walkthrough, each symbol a chip that opens its step:

O = softmax( mask( Q Kᵀ / √d_k ) ) V

The mask is written as a function, as step 7 defines it: it keeps a score where M_ij = 1 and sets
it to −∞ where M_ij = 0 (not "+ M", which would mean an additive mask of 0 and −∞).
"""

import streamlit as st

from ui.kit.i18n import current_lang, t

PARTS = (  # (text, or the key of its translated text; the step it opens)
    ("O =", "av"),
    ("softmax(", "softmax"),
    ("walkthrough.chip_mask", "mask"),
    ("Q", "qkv"),
    ("Kᵀ", "scores"),
    ("/ √d_k", "scaled"),
    (") )", "mask"),
    ("V", "av"),
)


def chip_text(i: int, lang: str | None = None) -> str:
    text = PARTS[i][0]
    return t(text, lang) if text.startswith("walkthrough.") else text


def _go() -> None:
    chosen = st.session_state.get("formula_pick")
    if chosen is not None:
        st.session_state["step"] = PARTS[chosen][1]


def show(current: str) -> None:
    """The formula as chips; the first chip of the current step is selected."""
    here = [i for i, (_, step) in enumerate(PARTS) if step == current]
    st.session_state["formula_pick"] = here[0] if here else None
    lang = current_lang()  # fixed now: Streamlit may call format_func after the run
    st.pills(
        t("walkthrough.formula_line"),
        range(len(PARTS)),
        format_func=lambda i: chip_text(i, lang),
        key="formula_pick",
        on_change=_go,
    )
