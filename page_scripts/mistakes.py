"""Common mistakes: wrong softmax axis, missing transpose, mask after softmax, d_k vs d_v."""

import streamlit as st

from ui.kit.i18n import t
from ui.kit.number_text import shown_index
from ui.shell.page_header import page_header
from ui.shell.sidebar import current
from ui.views import mistakes
from ui.work.traces import TraceKey, trace_or_stop

settings = current()
page_header(head=shown_index(0, settings.base))
data = trace_or_stop(settings)
tokens, dec = list(data.tokens), settings.decimals
numbers = mistakes.mistake_numbers(TraceKey.of(settings))

st.subheader(t("mistakes.axis_title"), anchor="wrong-axis")  # (practice links land here)
st.markdown(t("mistakes.axis_text"))
mistakes.wrong_axis(data.trace.S_scaled[0], tokens, dec)

st.subheader(t("mistakes.transpose_title"), anchor="no-transpose")
st.markdown(t("mistakes.transpose_text"))
mistakes.missing_transpose(data.trace.Q[0], data.trace.K[0], tokens, dec, settings.base)

st.subheader(t("mistakes.order_title"), anchor="mask-after-softmax")
mistakes.mask_after_softmax(numbers, tokens, dec)

st.subheader(t("mistakes.dv_title"), anchor="scale-d-v")
mistakes.d_k_and_d_v(numbers, data, settings)
