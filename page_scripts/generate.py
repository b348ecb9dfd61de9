"""A trained decoder writes: Gemma 3 270M's pieces, the next token's bars and the rules that
reshape them, writing one token at a time with the K/V cache, training against generation, and
how the real layer differs from the walkthrough's. The view lives in the URL."""

import streamlit as st

from ui.kit.i18n import t
from ui.shell.page_header import page_header
from ui.shell.sidebar import current
from ui.views.generate import next_token, prompt, real_layer, sharing, writing
from ui.work.decoding import prompt_for_writing

settings = current()
base, decimals = settings.base, settings.decimals
page_header(folded=settings.presentation)
box, picker = st.columns([2, 1])  # the model beside the prompt: the bars stay in the first screen
model = prompt.model_or_stop(picker)
with box:
    text = prompt.prompt_box(settings.lang)
ids = prompt.prompt_ids_or_stop(model, text)
prompt_for_writing(model, ids)  # first: a waiting learner sees the line under the box

# the first screen: the prompt, then Next and the bars, with the rules and the layer and head
# (on a projector the rules fold away; at 1280 × 720 the bars' top still starts ~50 px below the
# first screen, under the header, prompt, think box and player: scroll once, review 65 P-30)
st.subheader(t("generate.next_title"), anchor="next-token")
st.info(t("generate.think"), icon=":material/psychology:")
with st.expander(t("generate.rules_fold")) if settings.presentation else st.container():
    row = st.columns([*next_token.COLUMNS, 1, 1], vertical_alignment="bottom")
    rules = next_token.rules(row[:5])
    view = writing.layer_and_head(model, base, row[5:])
writing.section(model, ids, rules, view, base, decimals)
st.caption(t("generate.write_text"))
if not settings.presentation:  # a file to take home: not on the projected screen
    writing.take_home(model, text, ids, rules, settings.lang)

st.subheader(t("generate.pieces_title"))
prompt.pieces_table(model, ids, base)
st.subheader(t("generate.train_title"), anchor="training")
real_layer.training(model, ids, decimals, base)
st.subheader(t("generate.map_heading"), anchor="attention-map")
real_layer.attention_map(model, ids, view, decimals, base)
st.subheader(t("generate.diff_title"))
real_layer.differences(model, ids, decimals, base)
st.subheader(t("generate.kv_title"), anchor="kv-sharing")
st.markdown(t("generate.kv_text"))
sharing.section(model, text, ids, view, base, decimals)
