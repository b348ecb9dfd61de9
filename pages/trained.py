"""A trained model: its own pieces, one layer and head through Q, K, V, S, A, O, and which heads
link two pieces; computed by this app's NumPy code from the model's weights."""

import pandas as pd
import streamlit as st

import core
from ui.compute import all_layer_weights, model_trace
from ui.feedback import show_input_error
from ui.figures import COLOURS, heatmap
from ui.i18n import t
from ui.layout import grid, plot
from ui.settings import current

settings = current()
st.title(t("tr_title"))
st.markdown(t("tr_intro"))
sentence = st.text_input(t("tr_sentence"), "I love you", key="trained_sentence")
left, middle, right = st.columns(3)
model = left.selectbox(t("tr_model"), core.pretrained.MODELS, key="trained_model")
layer = middle.slider(t("tr_layer"), 0, 5, 0, key="trained_layer")
head = right.slider(t("tr_head"), 0, 11, 0, key="trained_head")
try:
    data = model_trace(model, sentence, layer)
except core.InputError as error:
    if error.code == "model_missing":
        st.warning(t("tr_missing", hint=error.params["hint"]))
    else:
        show_input_error(error)
    st.stop()

pieces, tr, dec = list(data.pieces), data.trace, settings.decimals
st.subheader(t("tr_pieces"))
words = sentence.split()
table = pd.DataFrame(
    {
        t("tr_word"): words,
        t("tr_its_pieces"): [
            "  ".join(p for p, w in zip(pieces, data.words) if w == i) for i in range(len(words))
        ],
    }
)
st.dataframe(table, hide_index=True, width="stretch")
st.caption(t("tr_special"))
if "[UNK]" in pieces:
    st.info(t("tr_vocab_note"))

st.subheader(t("tr_matrices", layer=layer, head=head))
st.caption(t("tr_bias_note"))
dims = [str(c) for c in range(tr.Q.shape[2])]
common = {"decimals": dec, "row_title": t("axis_token")}
grid(
    [
        (
            heatmap(
                getattr(tr, name)[head],
                pieces,
                dims,
                title=f"{name} = X W_{name} + b_{name}",
                title_colour=COLOURS[name],
                **common,
            ),
            f"tr_{name}",
        )
        for name in "QKV"
    ],
    per_row=3,
)
pair = {"decimals": dec, "row_title": t("axis_query"), "col_title": t("axis_key")}
grid(
    [
        (heatmap(tr.scaled[head], pieces, pieces, title="S / √d_k", **pair), "tr_S"),
        (heatmap(tr.weights[head], pieces, pieces, title="A", scale="weights", **pair), "tr_A"),
        (
            heatmap(
                tr.head_outputs[head],
                pieces,
                dims,
                title="O = A V",
                title_colour=COLOURS["O"],
                **common,
            ),
            "tr_O",
        ),
    ],
    per_row=3,
)

st.subheader(t("tr_who_title"))
a, b = st.columns(2)
labels = [f"{i} · {p}" for i, p in enumerate(pieces)]
q = labels.index(a.selectbox(t("tr_query"), labels, index=min(3, len(labels) - 1), key="tr_q"))
k = labels.index(b.selectbox(t("tr_key"), labels, index=min(1, len(labels) - 1), key="tr_k"))
weights = all_layer_weights(model, sentence)[:, :, q, k]  # [layers, heads]
plot(
    heatmap(
        weights,
        [str(i) for i in range(weights.shape[0])],
        [str(h) for h in range(weights.shape[1])],
        scale="weights",
        decimals=2,
        title=t("tr_who", q=pieces[q], k=pieces[k]),
        row_title=t("tr_layer"),
        col_title=t("tr_head"),
    ),
    "tr_who",
)

st.subheader(t("tr_compare_title"))
second = st.text_input(t("tr_second"), "you love me", key="trained_second")
try:
    other = model_trace(model, second, layer)
except core.InputError as error:
    show_input_error(error)
    st.stop()
grid(
    [
        (
            heatmap(tr.weights[head], pieces, pieces, title=sentence, scale="weights", **pair),
            "tr_cmp_a",
        ),
        (
            heatmap(
                other.trace.weights[head],
                list(other.pieces),
                list(other.pieces),
                title=second,
                scale="weights",
                **pair,
            ),
            "tr_cmp_b",
        ),
    ],
    per_row=2,
)
