"""A trained model: its own pieces, A of one layer and head beside one query→key weight in every
layer and head, the steps behind A, and two sentences compared; computed by this app's NumPy code
from the model's weights. The view lives in the URL (ui/views/trained.py lists its parameters)."""

import streamlit as st

from ui.kit.i18n import t
from ui.kit.number_text import shown_index
from ui.shell.page_header import page_header
from ui.shell.sidebar import current
from ui.views import trained

settings = current()
base = settings.base
page_header()
st.caption(t("trained.sidebar_note"))
model = trained.choose_model(settings.lang)
example = trained.EXAMPLES[model]
trained.about(model, example)
sentence = trained.sentence_box(example)
data = trained.traces_or_stop(model, sentence, trained.TEXT)
st.subheader(t("trained.pieces"))
trained.pieces_table(sentence, data)

st.subheader(t("trained.attention_title"))
view = trained.view_controls(data, example, base, sentence)
trained.attention_and_heads(data, view, settings.decimals, base)
L, H = shown_index(view.layer, base), shown_index(view.head, base)
with st.expander(t("trained.matrices", layer=L, head=H), icon=":material/calculate:"):
    st.caption(t("trained.bias_note"))
    pieces = list(data.pieces)
    trained.layer_head_matrices(data.traces[view.layer], view.head, pieces, settings.decimals, base)
st.subheader(t("trained.compare_title", layer=L, head=H))
trained.word_order(model, example.pair, view, settings.decimals)
