"""Walkthrough: X -> Q, K, V -> QKᵀ -> ÷√d_k -> mask -> softmax -> AV -> heads, step by step."""

import streamlit as st

import core
from ui import walkthrough
from ui.compute import trace_for
from ui.feedback import show_input_error
from ui.i18n import t
from ui.settings import current

settings = current()
st.title(t("app_title"))
try:
    data = trace_for(settings)
except core.InputError as error:
    show_input_error(error)
    st.stop()

st.caption(f"{t('tokens_line', n=data.n)} · {t('random_weights_note')}")
step = walkthrough.step_navigation(walkthrough.STEPS)
head, focus = walkthrough.row_controls(step, data, settings.n_heads)
walkthrough.render(step, data, settings, head, focus)
st.caption(t("backend_note", backend=data.backend))
