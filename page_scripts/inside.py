"""Inside the trained model: which layer knows the answer (the logit lens), the residual stream
as a sum, what each head does (the head gallery), and what breaks when heads are switched off.
The view lives in the URL."""

import streamlit as st

from ui.kit.i18n import t
from ui.shell.page_header import page_header
from ui.shell.sidebar import current
from ui.views.generate import prompt
from ui.views.inside import gallery, heads_off, lens, residual

settings = current()  # the numbering and the language (none of the layer's settings)
base = settings.base
page_header(folded=settings.presentation)
box, picker = st.columns([2, 1])  # the model beside the prompt: the lens stays in the first screen
model = prompt.model_or_stop(picker)
with box:
    text = lens.prompt_box(model, settings.lang)
ids = prompt.prompt_ids_or_stop(model, text)
heads_off.tell_url(model)

st.subheader(t("inside.lens_title"), anchor="lens")
st.info(t("inside.think"), icon=":material/psychology:")
with st.spinner(t("inside.working_lens")):  # the top bar shows no running indicator
    found = lens.section(model, ids, base)
st.caption(t("inside.lens_text"))  # (after the table: a projector's first screen holds it)

st.subheader(t("inside.sum_title"), anchor="residual-sum")
with st.spinner(t("inside.working_sum")):
    residual.section(model, ids, found.answer, base)

st.subheader(t("inside.gallery_title"), anchor="heads")
st.caption(t("inside.gallery_text", layers=model.config.n_layers, heads=model.config.n_heads))
with st.spinner(t("inside.working_heads", heads=model.config.n_layers * model.config.n_heads)):
    gallery.section(model, ids, base, settings.presentation)

st.subheader(t("inside.off_title"), anchor="heads-off")
st.caption(t("inside.off_text"))
with st.spinner(t("inside.working_off")):
    heads_off.section(model, ids, found.answer, base)
