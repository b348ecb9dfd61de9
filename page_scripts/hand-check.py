"""Hand check: three tokens, a chosen example of small whole numbers, every step written out."""

import streamlit as st

from ui.kit.i18n import t
from ui.shell.page_header import page_header
from ui.shell.sidebar import current
from ui.views.hand_check import sections as hand_check
from ui.views.hand_check import text as handcheck
from ui.views.hand_check.answer import answer
from ui.views.hand_check.text import HAND_TOKENS

settings = current()
page_header()
st.caption(t("hand_check.hand_sidebar_note"))
tokens = HAND_TOKENS[settings.lang]
causal = hand_check.controls()
matrices = hand_check.matrices_or_stop(tokens, settings.base)
trace = hand_check.trace_or_stop(matrices, causal)
steps = handcheck.steps_of(trace)
hand_check.exp_table(steps)
hand_check.recipe(causal)
answer(matrices, trace, steps, tokens, settings)
hand_check.two_ways(trace, steps, tokens, settings)
hand_check.worksheet(matrices, trace, tokens, settings)
