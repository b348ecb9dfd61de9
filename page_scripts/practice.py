"""Write attention yourself: each step as one line of NumPy for the sidebar's sentence, checked
against the walkthrough's numbers (Q, K, V, S, ÷√d_k, mask, A, O, concat, W_O)."""

import streamlit as st

from ui.kit.i18n import t
from ui.shell.page_header import page_header
from ui.shell.sidebar import current
from ui.views.practice import page
from ui.views.practice.exercise import exercise
from ui.work.traces import trace_or_stop

settings = current()
page_header(folded=settings.presentation)  # a projector: the exercise within the first screen
data = trace_or_stop(settings)
st.caption(f"{t('shell.tokens_line', n=data.n)} · {t('shell.random_weights_note')}")
step = page.step_picker()
head = page.head_picker(step, settings)
if exercise(step, data, settings, head):
    page.next_button(step)
