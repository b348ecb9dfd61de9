"""Inside the trained model: which layer knows the answer (the logit lens), the residual stream
as a sum, what each head does (the head gallery), and what breaks when heads are switched off.
The view lives in the URL."""

import streamlit as st

from ui.kit.i18n import t
from ui.shell.page_header import page_header
from ui.shell.sidebar import current
from ui.views.generate import prompt
from ui.views.inside import gallery, heads_off, lens, residual

current()  # the sidebar's settings taken (this page reads none of the layer's)
page_header()
model = prompt.model_or_stop()
text = lens.prompt_box()
ids = prompt.prompt_ids_or_stop(model, text)

st.subheader(t("inside.lens_title"))
st.info(t("inside.think"), icon=":material/psychology:")
st.caption(t("inside.lens_text"))
found = lens.section(model, ids)

st.subheader(t("inside.sum_title"))
residual.section(model, ids, found.answer)

st.subheader(t("inside.gallery_title"))
st.caption(t("inside.gallery_text"))
gallery.section(model, ids)

st.subheader(t("inside.off_title"))
st.caption(t("inside.off_text"))
heads_off.section(model, ids, found.answer)
