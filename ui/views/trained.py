"""The trained-model page's parts: each model's examples, the page's view in the URL (model,
sentence, layer, head, query and key piece), how the learner's words map onto the model's pieces,
A of one layer and head beside the query→key weight in every layer and head, the steps behind A
(Q, K, V, S, O), and two sentences side by side."""

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

import core
from ui.figures.axes import pair_axes, token_axes
from ui.figures.charts import COLOURS, A_heatmap, heatmap
from ui.figures.place import grid
from ui.kit.errors import show_input_error
from ui.kit.escape import markdown_text
from ui.kit.i18n import labeller, t
from ui.kit.number_text import indices, num, row_label, shown_index
from ui.kit.traces import ModelTraces, model_traces
from ui.kit.url import keep_in_url, url_choice


@dataclass(frozen=True)
class Example:
    about: str  # i18n key describing the model
    sentence: str  # what the page opens with
    link: tuple[str, str]  # (query, key) pieces the page opens on
    pair: tuple[str, str]  # two sentences for the word-order comparison


EXAMPLES = {
    "minilm": Example(
        "trained.about_minilm",
        "the movie was really good",
        ("good", "movie"),
        ("I love you", "you love me"),
    ),
    "e5-small-q4": Example(
        "trained.about_e5", "这 部 电影 很 好看", ("好看", "电影"), ("他喜欢她", "她喜欢他")
    ),
}
# URL parameters (each also the widget's key): ?tr_model=e5-small-q4&tr_text=…&tr_layer=3&tr_head=5
# &tr_focus=好看&tr_key=电影 (layer, head and numeric pieces are numbered as the page shows them)
MODEL, TEXT, LAYER, HEAD, FOCUS, KEY = (
    "tr_model",
    "tr_text",
    "tr_layer",
    "tr_head",
    "tr_focus",
    "tr_key",
)
VIEW = (TEXT, LAYER, HEAD, FOCUS, KEY)


@dataclass(frozen=True)
class View:
    layer: int  # all counted from 0, as the arrays are
    head: int
    q: int  # the focus (query) piece
    k: int  # the key piece whose weight the layer × head map shows


def _forget_view() -> None:
    """A new model starts from its own example: the rest of the view leaves the state and URL."""
    for key in VIEW:
        st.session_state.pop(key, None)
        if key in st.query_params:
            del st.query_params[key]


def choose_model(lang: str) -> str:
    return url_choice(
        st.selectbox,
        t("trained.model"),
        tuple(EXAMPLES),
        MODEL,
        "e5-small-q4" if lang == "zh" else "minilm",
        format_func=labeller("shell.model"),
        on_change=_forget_view,
    )


def sentence_box(example: Example) -> str:
    """The model's sentence: the URL's tr_text when the page opens, else the model's example."""
    if TEXT not in st.session_state:
        st.session_state[TEXT] = st.query_params.get(TEXT, example.sentence)
    sentence = st.text_input(t("trained.sentence"), key=TEXT)
    keep_in_url(TEXT, sentence, example.sentence)
    return sentence


def traces_or_stop(model: str, sentence: str, box: str) -> ModelTraces:
    """The model's traces of what the text box ``box`` holds; when the model is missing, how to
    get it; on bad input, the message (and a button that shortens that box)."""
    try:
        return model_traces(model, sentence)
    except core.InputError as error:
        if error.code == "model_missing":
            st.warning(t("trained.missing", hint=error.params["hint"]))
        else:
            show_input_error(error, box=box)
        st.stop()


def pieces_table(sentence: str, data: ModelTraces) -> None:
    words = sentence.split()
    pieces_of = [
        "  ".join(p for p, w in zip(data.pieces, data.words) if w == i) for i in range(len(words))
    ]
    table = pd.DataFrame({t("trained.word"): words, t("trained.its_pieces"): pieces_of})
    st.dataframe(table, hide_index=True, width="stretch")
    start, end = data.pieces[0], data.pieces[-1]
    n = len(data.pieces)
    st.caption(t("trained.special", start=markdown_text(start), end=markdown_text(end), n=n))
    if any(p.startswith("▁") for p in data.pieces):  # SentencePiece marks spaces
        st.caption(t("trained.metaspace"))
    if "[UNK]" in data.pieces:
        st.info(t("trained.vocab_note"))


def find_piece(pieces, wanted: str | None, base: int) -> int | None:
    """A piece named in a URL: its number as the page shows it, or its text (without the ▁ or ##
    a tokenizer adds); None when it names no piece."""
    if not wanted:
        return None
    if wanted.isdigit():
        i = int(wanted) - base
        return i if 0 <= i < len(pieces) else None
    bare = [p.removeprefix("##").removeprefix("▁") for p in pieces]
    return bare.index(wanted) if wanted in bare else None


def _number_from_url(key: str, count: int, base: int) -> int | None:
    text = st.query_params.get(key, "")
    i = int(text) - base if text.isdigit() else -1
    return i if 0 <= i < count else None


def _seed(key: str, value: int, fresh: bool) -> None:
    """Start a widget at ``value`` when it has no state yet, or anew when ``fresh``."""
    if fresh or key not in st.session_state:
        st.session_state[key] = value


def view_controls(data: ModelTraces, example: Example, base: int, sentence: str) -> View:
    """Layer, head, query and key pickers, opened from the URL, else on the example's link (e.g.
    好看 → 电影) in the head where it is strongest; kept in the URL. A new sentence starts the
    query and key pieces over."""
    pieces = list(data.pieces)
    n, n_layers, n_heads = len(pieces), len(data.traces), data.traces[0].A.shape[0]
    changed = st.session_state.get("_tr_sentence", sentence) != sentence
    st.session_state["_tr_sentence"] = sentence
    from_url = not changed
    q, k = (
        _default_index(pieces, example.link[0], n - 2),
        _default_index(pieces, example.link[1], 1),
    )
    layer, head = np.unravel_index(data.A[:, :, q, k].argmax(), (n_layers, n_heads))
    defaults = {LAYER: int(layer), HEAD: int(head), FOCUS: q, KEY: k}  # the link's strongest head
    seeds = {
        LAYER: _number_from_url(LAYER, n_layers, base),
        HEAD: _number_from_url(HEAD, n_heads, base),
        FOCUS: find_piece(pieces, st.query_params.get(FOCUS), base),
        KEY: find_piece(pieces, st.query_params.get(KEY), base),
    }
    for key, default in defaults.items():
        seed = seeds[key] if from_url and seeds[key] is not None else default
        limit = {LAYER: n_layers, HEAD: n_heads}.get(key, n)
        stale = st.session_state.get(key, 0) >= limit
        _seed(key, seed, fresh=stale or (changed and key in (FOCUS, KEY)))
    left, right = st.columns(2)
    number = {"format_func": lambda i: shown_index(i, base)}
    layer = left.select_slider(t("trained.layer"), range(n_layers), key=LAYER, **number)
    head = right.select_slider(t("trained.head"), range(n_heads), key=HEAD, **number)
    left, right = st.columns(2)
    piece = {"format_func": lambda i: row_label(i, pieces[i], base)}
    q = left.selectbox(
        t("trained.query"), range(n), key=FOCUS, help=t("trained.query_help"), **piece
    )
    k = right.selectbox(t("trained.key"), range(n), key=KEY, help=t("trained.key_help"), **piece)
    for key, value in ((LAYER, layer), (HEAD, head), (FOCUS, q), (KEY, k)):
        keep_in_url(key, shown_index(value, base), shown_index(defaults[key], base))
    return View(layer, head, q, k)


def _default_index(pieces: list, word: str, fallback: int) -> int:
    i = find_piece(pieces, word, 0)
    return max(0, min(fallback, len(pieces) - 1)) if i is None else i


def attention_and_heads(data: ModelTraces, view: View, decimals: int, base: int) -> None:
    """A of the chosen layer and head (the query row boxed, the key's cell outlined) beside the
    query→key weight in every layer and head (the chosen one outlined); then what they say."""
    pieces = list(data.pieces)
    q, k, layer, head = view.q, view.k, view.layer, view.head
    A = data.traces[layer].A[head]  # [n, n]
    a_qk = data.A[:, :, q, k]  # [layers, heads]
    layers, heads = a_qk.shape
    L, H = shown_index(layer, base), shown_index(head, base)
    A_figure = A_heatmap(
        A,
        pieces,
        title=t("trained.A", layer=L, head=H),
        focus_row=q,
        outline=((q, q + 1), (k, k + 1)),
        **pair_axes(decimals),
    )
    who = heatmap(
        a_qk,
        indices(layers, base),
        indices(heads, base),
        scale="unit",
        decimals=decimals,
        title=t("trained.who", q=pieces[q], k=pieces[k]),
        row_title=t("trained.layer"),
        col_title=t("trained.head"),
        outline=((layer, layer + 1), (head, head + 1)),
    )
    grid([(A_figure, "tr_A"), (who, "tr_who")], per_row=2)
    what_they_say(pieces, A, a_qk, view, decimals, base)


def what_they_say(pieces, A, a_qk, view: View, decimals: int, base: int) -> None:
    """The focus row's strongest key and the chosen weight, then the strongest head for it."""
    q, k = view.q, view.k
    L, H = shown_index(view.layer, base), shown_index(view.head, base)
    top = int(np.argmax(A[q]))
    names = {"q": markdown_text(pieces[q]), "k": markdown_text(pieces[k])}
    st.markdown(
        t(
            "trained.focus_row",
            **names,
            top=markdown_text(pieces[top]),
            top_weight=num(A[q, top], decimals),
            weight=num(A[q, k], decimals),
            total=num(A[q].sum(), decimals),
            layer=L,
            head=H,
        )
    )
    best_layer, best_head = np.unravel_index(a_qk.argmax(), a_qk.shape)
    strongest = t(
        "trained.strongest",
        **names,
        layer=shown_index(best_layer, base),
        head=shown_index(best_head, base),
        weight=num(a_qk.max(), decimals),
        n=len(pieces),
        even=num(1 / len(pieces), decimals),
    )
    st.markdown(strongest)
    st.info(t("trained.relative"), icon=":material/balance:")


def layer_head_matrices(
    trace: core.AttentionTrace, head: int, pieces: list, decimals: int, base: int
) -> None:
    """Q, K, V (one colour range), then S/√d_k and O, of one head."""
    dims = indices(trace.Q.shape[2], base)
    by_piece = token_axes(decimals)
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
    S = heatmap(trace.S_scaled[head], pieces, pieces, title="S / √d_k", **pair_axes(decimals))
    O = heatmap(
        trace.O[head],
        pieces,
        dims,
        title="O = A V",
        title_colour=COLOURS["O"],
        **by_piece,
    )
    grid(projections, per_row=3)
    grid([(S, "tr_S"), (O, "tr_O")], per_row=2)


def word_order(model: str, pair: tuple[str, str], view: View, decimals: int) -> None:
    """Two sentences the learner types, the same layer and head's A side by side."""
    columns = st.columns(2)
    boxes = [f"trained_{label}_{model}" for label in ("tr_first", "tr_second")]
    texts = [
        column.text_input(t(f"trained.{label[3:]}"), default, key=box)
        for column, label, default, box in zip(columns, ("tr_first", "tr_second"), pair, boxes)
    ]
    figures = []
    for i, (text, box) in enumerate(zip(texts, boxes)):
        other = traces_or_stop(model, text, box)
        pieces = list(other.pieces)
        A = other.traces[view.layer].A[view.head]
        figure = A_heatmap(A, pieces, title=text, **pair_axes(decimals))
        figures.append((figure, f"tr_cmp_{i}"))
    grid(figures, per_row=2)
