"""A trained decoder writes: Gemma 3 270M's pieces, the next token's bars and the rules that
reshape them, writing one token at a time with the K/V cache, training against generation, and
how the real layer differs from the walkthrough's. The view lives in the URL."""

import streamlit as st

from ui.kit.escape import markdown_text
from ui.kit.i18n import t
from ui.shell.page_header import page_header
from ui.shell.sidebar import current
from ui.views.generate import inside, next_token, prompt, writing

settings = current()
base, decimals = settings.base, settings.decimals
page_header()
model = prompt.model_or_stop()
text = prompt.prompt_box(settings.lang)
ids = prompt.prompt_ids_or_stop(model, text)
st.subheader(t("gen_pieces_title"))
st.caption(markdown_text(t("gen_pieces_text")))
prompt.pieces_table(model, ids)

st.subheader(t("gen_next_title"))
st.info(t("gen_think"), icon=":material/psychology:")
rules = next_token.rules()
st.subheader(t("gen_write_title"))
st.caption(t("gen_write_text"))
view = writing.layer_and_head(model, base)
writing.section(model, ids, rules, view, base, decimals)

st.subheader(t("gen_train_title"))
inside.training(model, ids, decimals, base)
inside.attention_map(model, ids, view, decimals, base)
st.subheader(t("gen_diff_title"))
inside.differences(model, ids, decimals, base)
