"""The trained-model page's parts: each model's examples, how the learner's words map onto the
model's pieces, one layer and head through Q, K, V, S, A, O, which heads link two pieces, and two
sentences side by side."""

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

import core
from ui.compute import ModelTraces, model_traces
from ui.escape import markdown_text
from ui.feedback import show_input_error
from ui.figures import COLOURS, heatmap
from ui.i18n import t
from ui.layout import grid, plot
from ui.numbers import num


@dataclass(frozen=True)
class Example:
    about: str  # i18n key describing the model
    sentence: str  # what the page opens with
    link: tuple[str, str]  # (query, key) pieces whose weight the layer x head map shows
    pair: tuple[str, str]  # two sentences for the word-order comparison


EXAMPLES = {
    "minilm": Example("tr_about_minilm", "I love you", ("you", "i"), ("I love you", "you love me")),
    "e5-small-q4": Example(
        "tr_about_e5", "这部电影真好看", ("好看", "电影"), ("他喜欢她", "她喜欢他")
    ),
}


def traces_or_stop(model: str, sentence: str, box: str) -> ModelTraces:
    """The model's traces of what the text box ``box`` holds; when the model is missing, how to
    get it; on bad input, the message (and a button that shortens that box)."""
    try:
        return model_traces(model, sentence)
    except core.InputError as error:
        if error.code == "model_missing":
            st.warning(t("tr_missing", hint=error.params["hint"]))
        else:
            show_input_error(error, box=box)
        st.stop()


def pieces_table(sentence: str, data: ModelTraces) -> None:
    words = sentence.split()
    pieces_of = [
        "  ".join(p for p, w in zip(data.pieces, data.words) if w == i) for i in range(len(words))
    ]
    table = pd.DataFrame({t("tr_word"): words, t("tr_its_pieces"): pieces_of})
    st.dataframe(table, hide_index=True, width="stretch")
    start, end = data.pieces[0], data.pieces[-1]
    st.caption(t("tr_special", start=markdown_text(start), end=markdown_text(end)))
    if any(p.startswith("▁") for p in data.pieces):  # SentencePiece marks spaces
        st.caption(t("tr_metaspace"))
    if "[UNK]" in data.pieces:
        st.info(t("tr_vocab_note"))


def layer_head_matrices(trace: core.AttentionTrace, head: int, pieces: list, decimals: int) -> None:
    """Q, K, V (one colour range), then S/√d_k, A and O, of one head."""
    dims = [str(c) for c in range(trace.Q.shape[2])]
    by_piece = {"decimals": decimals, "row_title": t("axis_token")}
    bound = float(max(np.abs(getattr(trace, name)[head]).max() for name in "QKV"))
    projections = [
        (
            heatmap(
                getattr(trace, name)[head],
                pieces,
                dims,
                title=f"{name} = X W_{name} + b_{name}",
                title_colour=COLOURS[name],
                bound=bound,
                **by_piece,
            ),
            f"tr_{name}",
        )
        for name in "QKV"
    ]
    grid(projections, per_row=3)
    by_pair = pair_axes(decimals)
    S = heatmap(trace.S_scaled[head], pieces, pieces, title="S / √d_k", **by_pair)
    A = heatmap(trace.A[head], pieces, pieces, title="A", scale="unit", **by_pair)
    O = heatmap(
        trace.O[head],
        pieces,
        dims,
        title="O = A V",
        title_colour=COLOURS["O"],
        **by_piece,
    )
    grid([(S, "tr_S"), (A, "tr_A"), (O, "tr_O")], per_row=3)


def pair_axes(decimals: int) -> dict:
    return {"decimals": decimals, "row_title": t("axis_query"), "col_title": t("axis_key")}


def _default_index(pieces: list, word: str, fallback: int) -> int:
    bare = [p.removeprefix("##").removeprefix("▁") for p in pieces]
    return bare.index(word) if word in bare else fallback


def which_heads_link(model: str, data: ModelTraces, link: tuple[str, str]) -> None:
    """Pick a query and a key piece; their weight in every layer and head, the strongest named."""
    pieces = list(data.pieces)
    labels = [f"{i} · {p}" for i, p in enumerate(pieces)]
    left, right = st.columns(2)
    q = labels.index(
        left.selectbox(
            t("tr_query"),
            labels,
            index=_default_index(pieces, link[0], len(pieces) - 2),
            key=f"tr_q_{model}",
        )
    )
    k = labels.index(
        right.selectbox(
            t("tr_key"), labels, index=_default_index(pieces, link[1], 1), key=f"tr_k_{model}"
        )
    )
    a_qk = data.A[:, :, q, k]  # [layers, heads]
    layers, heads = a_qk.shape
    figure = heatmap(
        a_qk,
        [str(i) for i in range(layers)],
        [str(h) for h in range(heads)],
        scale="unit",
        decimals=2,
        title=t("tr_who", q=pieces[q], k=pieces[k]),
        row_title=t("tr_layer"),
        col_title=t("tr_head"),
    )
    plot(figure, "tr_who")
    best_layer, best_head = np.unravel_index(a_qk.argmax(), a_qk.shape)
    strongest = t(
        "tr_strongest",
        layer=best_layer,
        head=best_head,
        q=markdown_text(pieces[q]),
        k=markdown_text(pieces[k]),
        weight=num(a_qk.max(), 2),
        n=len(pieces),
        even=num(1 / len(pieces), 2),
    )
    st.markdown(strongest)


def word_order(model: str, pair: tuple[str, str], layer: int, head: int, decimals: int) -> None:
    """Two sentences the learner types, the same layer and head's A side by side."""
    columns = st.columns(2)
    boxes = [f"trained_{label}_{model}" for label in ("tr_first", "tr_second")]
    texts = [
        column.text_input(t(label), default, key=box)
        for column, label, default, box in zip(columns, ("tr_first", "tr_second"), pair, boxes)
    ]
    figures = []
    for i, (text, box) in enumerate(zip(texts, boxes)):
        other = traces_or_stop(model, text, box)
        pieces = list(other.pieces)
        A = other.traces[layer].A[head]
        figures.append(
            (
                heatmap(A, pieces, pieces, title=text, scale="unit", **pair_axes(decimals)),
                f"tr_cmp_{i}",
            )
        )
    grid(figures, per_row=2)
