"""A trained model: its own pieces, one layer and head through Q, K, V, S, A, O, and which heads
link two pieces; computed by this app's NumPy code from the model's weights."""

import streamlit as st

from ui import trained
from ui.i18n import labeller, t
from ui.settings import current

settings = current()
st.title(t("tr_title"))
st.markdown(t("tr_intro"))
st.caption(t("tr_sidebar_note"))
model = st.selectbox(
    t("tr_model"),
    list(trained.EXAMPLES),
    index=1 if settings.lang == "zh" else 0,
    format_func=labeller("model"),
    key="trained_model",
)
example = trained.EXAMPLES[model]
st.markdown(t(example.about))
box = f"trained_sentence_{model}"
sentence = st.text_input(t("tr_sentence"), example.sentence, key=box)
data = trained.traces_or_stop(model, sentence, box)
left, right = st.columns(2)
layer = left.slider(t("tr_layer"), 0, len(data.traces) - 1, 0, key=f"trained_layer_{model}")
n_heads = data.traces[0].A.shape[0]
head = right.slider(t("tr_head"), 0, n_heads - 1, 0, key=f"trained_head_{model}")

st.subheader(t("tr_pieces"))
trained.pieces_table(sentence, data)
st.subheader(t("tr_matrices", layer=layer, head=head))
st.caption(t("tr_bias_note"))
trained.layer_head_matrices(data.traces[layer], head, list(data.pieces), settings.decimals)
st.subheader(t("tr_who_title"))
trained.which_heads_link(model, data, example.link)
st.subheader(t("tr_compare_title", layer=layer, head=head))
trained.word_order(model, example.pair, layer, head, settings.decimals)
