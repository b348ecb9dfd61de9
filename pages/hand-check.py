"""Hand check: three tokens, small whole numbers, every matrix editable, every step written out."""

import streamlit as st

from ui import hand_check
from ui.handcheck import HAND_TOKENS
from ui.i18n import t
from ui.settings import current

settings = current()
st.title(t("hand_title"))
st.markdown(t("hand_intro"))
st.caption(t("hand_sidebar_note"))
tokens = HAND_TOKENS[settings.lang]
matrices = hand_check.matrices_or_stop(tokens)
trace = hand_check.trace_or_stop(matrices)
hand_check.answer(trace, tokens)
hand_check.worksheet(matrices, trace, tokens, settings)
