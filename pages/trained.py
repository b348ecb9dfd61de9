"""A trained model: its own pieces, one layer and head through Q, K, V, S, A, O, and which heads
link two pieces; computed by this app's NumPy code from the model's weights."""

import numpy as np
import pandas as pd
import streamlit as st

import core
from ui.compute import model_traces
from ui.escape import markdown_text
from ui.feedback import show_input_error
from ui.figures import COLOURS, heatmap
from ui.i18n import labeller, t
from ui.layout import grid, plot
from ui.numbers import num
from ui.settings import current

# model -> sentence, (query, key) pieces to link, word-order pair
MODELS = {
    "minilm": ("I love you", ("you", "i"), ("I love you", "you love me")),
    "e5-small-q4": ("这部电影真好看", ("好看", "电影"), ("他喜欢她", "她喜欢他")),
}


def bare(piece: str) -> str:
    return piece.removeprefix("##").removeprefix("▁")


def traces_or_stop(model: str, sentence: str):
    try:
        return model_traces(model, sentence)
    except core.InputError as error:
        if error.code == "model_missing":
            st.warning(t("tr_missing", hint=error.params["hint"]))
        else:
            show_input_error(error)
        st.stop()


settings = current()
st.title(t("tr_title"))
st.markdown(t("tr_intro"))
st.caption(t("tr_sidebar_note"))
model = st.selectbox(
    t("tr_model"),
    list(MODELS),
    index=1 if settings.lang == "zh" else 0,
    format_func=labeller("model"),
    key="trained_model",
)
default_sentence, (query_word, key_word), pair = MODELS[model]
st.markdown(t("tr_about_e5" if model == "e5-small-q4" else "tr_about_minilm"))
sentence = st.text_input(t("tr_sentence"), default_sentence, key=f"trained_sentence_{model}")
data = traces_or_stop(model, sentence)
pieces, dec = list(data.pieces), settings.decimals
n_layers, n_heads = len(data.traces), data.traces[0].weights.shape[0]
left, right = st.columns(2)
layer = left.slider(t("tr_layer"), 0, n_layers - 1, 0, key=f"trained_layer_{model}")
head = right.slider(t("tr_head"), 0, n_heads - 1, 0, key=f"trained_head_{model}")
tr = data.traces[layer]

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
st.caption(t("tr_special", start=markdown_text(pieces[0]), end=markdown_text(pieces[-1])))
if model == "e5-small-q4":
    st.caption(t("tr_metaspace"))
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
pair_axes = {"decimals": dec, "row_title": t("axis_query"), "col_title": t("axis_key")}
grid(
    [
        (heatmap(tr.scaled[head], pieces, pieces, title="S / √d_k", **pair_axes), "tr_S"),
        (
            heatmap(tr.weights[head], pieces, pieces, title="A", scale="weights", **pair_axes),
            "tr_A",
        ),
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
labels = [f"{i} · {p}" for i, p in enumerate(pieces)]
bare_pieces = [bare(p) for p in pieces]
default_q = bare_pieces.index(query_word) if query_word in bare_pieces else len(pieces) - 2
default_k = bare_pieces.index(key_word) if key_word in bare_pieces else 1
a, b = st.columns(2)
q = labels.index(a.selectbox(t("tr_query"), labels, index=default_q, key=f"tr_q_{model}"))
k = labels.index(b.selectbox(t("tr_key"), labels, index=default_k, key=f"tr_k_{model}"))
weights = data.weights[:, :, q, k]  # [layers, heads]
best_layer, best_head = np.unravel_index(weights.argmax(), weights.shape)
plot(
    heatmap(
        weights,
        [str(i) for i in range(n_layers)],
        [str(h) for h in range(n_heads)],
        scale="weights",
        decimals=2,
        title=t("tr_who", q=pieces[q], k=pieces[k]),
        row_title=t("tr_layer"),
        col_title=t("tr_head"),
    ),
    "tr_who",
)
st.markdown(
    t(
        "tr_strongest",
        layer=best_layer,
        head=best_head,
        q=markdown_text(pieces[q]),
        k=markdown_text(pieces[k]),
        weight=num(weights.max(), 2),
        n=len(pieces),
        even=num(1 / len(pieces), 2),
    )
)

st.subheader(t("tr_compare_title", layer=layer, head=head))
first_column, second_column = st.columns(2)
first = first_column.text_input(t("tr_first"), pair[0], key=f"trained_first_{model}")
second = second_column.text_input(t("tr_second"), pair[1], key=f"trained_second_{model}")
both = [(text, traces_or_stop(model, text)) for text in (first, second)]
grid(
    [
        (
            heatmap(
                other.traces[layer].weights[head],
                list(other.pieces),
                list(other.pieces),
                title=text,
                scale="weights",
                **pair_axes,
            ),
            f"tr_cmp_{i}",
        )
        for i, (text, other) in enumerate(both)
    ],
    per_row=2,
)
