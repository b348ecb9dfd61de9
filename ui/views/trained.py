"""The trained-model page's parts: each model's examples, the page's view in the URL (model,
sentence, layer, head, query and key piece), how the learner's words map onto the model's pieces,
A of one layer and head beside the query→key weight in every layer and head, how much of it rests
on the first piece (an attention sink), the steps behind A (Q, K, V, S, O), and two sentences side
by side with how far their aligned weights differ. Pieces are shown with "␣" for the space
SentencePiece writes "▁"; charts keep their labels upright and print values only where the cells
have room for them at 12 px (the hover has them everywhere)."""

from dataclasses import dataclass

import numpy as np
import streamlit as st

import core
from ui.figures.axes import pair_axes, token_axes
from ui.figures.heatmaps import A_heatmap, beside_cells, heatmap, values_fit_width
from ui.figures.palette import COLOURS, TEXT_PX, TICK_PX
from ui.figures.place import BIG_TEXT_PX, DENSE_COLUMNS, grid, plot
from ui.kit.choose import selectbox
from ui.kit.errors import show_input_error
from ui.kit.escape import markdown_text
from ui.kit.i18n import labeller, t
from ui.kit.number_text import indices, num, row_label, shown_index
from ui.kit.tables import table
from ui.kit.url import keep_in_url, told, url_choice, whole
from ui.work.traces import ModelTraces, model_traces


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
PHONE_PX = 366  # px: a chart's width on a 390-px phone, the narrowest screen the page is read on
PROJECTOR_PX = 520  # px: a chart's width, two to a row, on a 1280-px projector (sidebar folded)


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


def about(model: str, example: Example) -> None:
    """What the model is; for the quantised one, how its weights were stored, in an expander."""
    st.markdown(t(example.about))
    if model == "e5-small-q4":
        with st.expander(t("trained.quantised_title"), icon=":material/compress:"):
            st.markdown(t("trained.quantised"))


def shown(pieces) -> list[str]:
    """Pieces as the page shows them: SentencePiece's space mark "▁" as "␣" ("▁这" → "␣这", a
    lone "▁" → "␣"), everything else as the model has it."""
    return [str(piece).replace("▁", "␣") for piece in pieces]


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
    """Each word and the pieces it became (" / " between pieces), then what the special pieces
    and "␣" are."""
    words, labels = sentence.split(), shown(data.pieces)
    pieces_of = [
        " / ".join(p for p, w in zip(labels, data.words) if w == i) for i in range(len(words))
    ]
    table({t("trained.word"): words, t("trained.its_pieces"): pieces_of})
    start, end = labels[0], labels[-1]
    n = len(labels)
    st.caption(t("trained.special", start=markdown_text(start), end=markdown_text(end), n=n))
    if any("▁" in p for p in data.pieces):  # SentencePiece marks spaces
        st.caption(t("trained.metaspace"))
    if "[UNK]" in data.pieces:
        st.info(t("trained.vocab_note"))


def find_piece(pieces, wanted: str | None, base: int) -> int | None:
    """A piece named in a URL: its number as the page shows it, or its text (without the ▁ or ##
    a tokenizer adds, or the ␣ the page shows for ▁); None when it names no piece."""
    if not wanted:
        return None
    if wanted.isdigit():
        i = int(wanted) - base
        return i if 0 <= i < len(pieces) else None
    bare = [p.removeprefix("##").removeprefix("▁") for p in pieces]
    wanted = wanted.removeprefix("␣")
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
    if from_url:  # a number out of range, or a piece the sentence lacks, is said
        told(LAYER, whole(base, n_layers - 1 + base))
        told(HEAD, whole(base, n_heads - 1 + base))
        for key in (FOCUS, KEY):
            told(key, lambda text: find_piece(pieces, text, base) is not None)
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
    labels = shown(pieces)
    piece = {"format_func": lambda i: row_label(i, labels[i], base)}
    q = selectbox(
        left, t("trained.query"), range(n), key=FOCUS, help=t("trained.query_help"), **piece
    )
    k = selectbox(right, t("trained.key"), range(n), key=KEY, help=t("trained.key_help"), **piece)
    for key, value in ((LAYER, layer), (HEAD, head), (FOCUS, q), (KEY, k)):
        keep_in_url(key, shown_index(value, base), shown_index(defaults[key], base))
    return View(layer, head, q, k)


def _default_index(pieces: list, word: str, fallback: int) -> int:
    i = find_piece(pieces, word, 0)
    return max(0, min(fallback, len(pieces) - 1)) if i is None else i


def fitted(labels, decimals: int, row_title: str) -> dict:
    """Options for a heatmap with ``labels`` and ``row_title`` on its rows that fits a phone:
    upright column labels that fit there (on a projector, at projector size)."""
    big = st.session_state.get("big")
    width, font = (PROJECTOR_PX, BIG_TEXT_PX) if big else (PHONE_PX, TICK_PX)
    room = (width - beside_cells(labels, row_title) * font // TICK_PX) * TICK_PX // font
    return {"narrowest": room, "decimals": decimals, "row_title": row_title}


def plot_fitted(fig, key: str, M, labels, fit: dict) -> None:
    """A heatmap of ``M`` drawn with ``fit`` (from ``fitted``): its values show only where the
    chart is wide enough for each at its font size (a CSS container query on the chart's own
    width; on a phone a wide one hides them, as ui/shell/style.py says); where they are hidden a
    line under the chart says that the hover (a tap) has them."""
    font = BIG_TEXT_PX if st.session_state.get("big") else TEXT_PX
    least = values_fit_width(M, labels, fit["decimals"], fit["row_title"], font)
    box, note = f"fit_{key}", f"fit_{key}_note"
    show = f".st-key-{note} {{display: flex !important;}}"
    phone = f"@media (max-width: 640px) {{{show}}}" if np.shape(M)[1] > DENSE_COLUMNS else ""
    st.html(
        f"<style>.st-key-{box} {{container-type: inline-size;}}"
        f" .st-key-{note} {{display: none !important;}}"
        f" @container (max-width: {least - 1}px) {{.st-key-{box} g.heatmap-label {{display: none;}}"
        f" {show}}} {phone}</style>"
    )
    with st.container(key=box):
        plot(fig, key)
        st.container(key=note).caption(t("trained.hover"))


def attention_and_heads(data: ModelTraces, view: View, decimals: int, base: int) -> None:
    """A of the chosen layer and head (the query row boxed, the key's cell outlined) beside the
    query→key weight in every layer and head (the chosen one outlined); then what they say."""
    labels = shown(data.pieces)
    q, k, layer, head = view.q, view.k, view.layer, view.head
    A = data.traces[layer].A[head]  # [n, n]
    a_qk = data.A[:, :, q, k]  # [layers, heads]
    layers, heads = a_qk.shape
    L, H = shown_index(layer, base), shown_index(head, base)
    fit_A = fitted(labels, decimals, t("walkthrough.axis_query"))
    A_figure = A_heatmap(
        A,
        labels,
        title=t("trained.A", layer=L, head=H),
        focus_row=q,
        outline=((q, q + 1), (k, k + 1)),
        sums=False,
        **pair_axes(**fit_A),
    )
    numbers = indices(layers, base), indices(heads, base)
    fit_who = fitted(numbers[0], decimals, t("trained.layer"))
    who = heatmap(
        a_qk,
        *numbers,
        scale="unit",
        title=t("trained.who", q=labels[q], k=labels[k]),
        col_title=t("trained.head"),
        outline=((layer, layer + 1), (head, head + 1)),
        **fit_who,
    )
    left, right = st.columns(2)
    with left:
        plot_fitted(A_figure, "tr_A", A, labels, fit_A)
    with right:
        plot_fitted(who, "tr_who", a_qk, numbers[0], fit_who)
    what_they_say(labels, A, a_qk, view, decimals, base)
    sink(labels, data.traces[layer].A, view, base)
    st.info(t("trained.relative"), icon=":material/balance:")


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


def percent(share: float) -> str:
    return f"{100 * share:.0f}%"


def sink(labels: list, A_layer: np.ndarray, view: View, base: int) -> None:
    """How much attention the head shown rests on the first piece (<s> or [CLS]): the mean over
    the query rows of A[:, 0], beside an even share; whether that makes it the head's attention
    sink (the column with the most), and in how many of the layer's heads it is."""
    columns = A_layer.mean(axis=1)  # [heads, n]: each key's share, averaged over the queries
    mine, n = columns[view.head], len(labels)
    top = int(mine.argmax())
    key = "trained.sink" if top == 0 else "trained.no_sink"
    line = t(
        key,
        layer=shown_index(view.layer, base),
        head=shown_index(view.head, base),
        start=markdown_text(labels[0]),
        share=percent(mine[0]),
        n=n,
        even=percent(1 / n),
        top=markdown_text(labels[top]),
        top_share=percent(mine[top]),
        sinks=int((columns.argmax(axis=1) == 0).sum()),
        heads=len(columns),
    )
    st.markdown(line)


def layer_head_matrices(
    trace: core.AttentionTrace, head: int, pieces: list, decimals: int, base: int
) -> None:
    """Q, K, V (one colour range), then S/√d_k and O, of one head."""
    pieces = shown(pieces)
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
    S_scaled = trace.S_scaled[head]
    fit = fitted(pieces, decimals, t("walkthrough.axis_query"))
    S = heatmap(S_scaled, pieces, pieces, title="S / √d_k", **pair_axes(**fit))
    O = heatmap(
        trace.O[head],
        pieces,
        dims,
        title="O = A V",
        title_colour=COLOURS["O"],
        **by_piece,
    )
    grid(projections, per_row=3)
    left, right = st.columns(2)
    with left:
        plot_fitted(S, "tr_S", S_scaled, pieces, fit)
    with right:
        plot(O, "tr_O")


def word_order(model: str, pair: tuple[str, str], view: View, decimals: int) -> None:
    """Two sentences the learner types, the same layer and head's A side by side, then how far
    the weights between the pieces they share differ."""
    columns = st.columns(2)
    boxes = [f"trained_{label}_{model}" for label in ("tr_first", "tr_second")]
    texts = [
        column.text_input(t(f"trained.{label[3:]}"), default, key=box)
        for column, label, default, box in zip(columns, ("tr_first", "tr_second"), pair, boxes)
    ]
    both = []
    for i, (text, box, column) in enumerate(zip(texts, boxes, st.columns(2))):
        other = traces_or_stop(model, text, box)
        A, labels = other.traces[view.layer].A[view.head], shown(other.pieces)
        fit = fitted(labels, decimals, t("walkthrough.axis_query"))
        figure = A_heatmap(A, labels, title=text, sums=False, **pair_axes(**fit))
        with column:
            plot_fitted(figure, f"tr_cmp_{i}", A, labels, fit)
        both.append((list(other.pieces), A))
    order_takeaway(*both, decimals)


def _bare(piece: str) -> str:
    return piece.removeprefix("##").removeprefix("▁") or piece


def shared_pieces(first: list, second: list) -> list[tuple[int, int]]:
    """(i, j) for each piece of ``first`` that ``second`` has too (the same text, without the ▁
    or ## a tokenizer adds), matched in order: "▁他 喜欢 她" and "▁她 喜欢 他" share all three."""
    places: dict[str, list[int]] = {}
    for j, piece in enumerate(second):
        places.setdefault(_bare(piece), []).append(j)
    pairs = []
    for i, piece in enumerate(first):
        left = places.get(_bare(piece))
        if left:
            pairs.append((i, left.pop(0)))
    return pairs


def order_takeaway(first: tuple, second: tuple, decimals: int) -> None:
    """The largest difference between the two A maps over the pieces both sentences have, the
    row and column where it is, and the two weights there."""
    (pieces, A1), (other, A2) = first, second
    I, J = (list(side) for side in zip(*shared_pieces(pieces, other)))
    gap = np.abs(A1[np.ix_(I, I)] - A2[np.ix_(J, J)])
    r, c = np.unravel_index(gap.argmax(), gap.shape)
    labels = shown(_bare(piece) for piece in pieces)  # the text both sentences share
    values = {
        "diff": num(gap[r, c], decimals),
        "q": markdown_text(labels[I[r]]),
        "k": markdown_text(labels[I[c]]),
        "a": num(A1[I[r], I[c]], decimals),
        "b": num(A2[J[r], J[c]], decimals),
        "shared": len(I),
    }
    same = gap[r, c] < 0.5 * 10.0**-decimals
    st.markdown(t("trained.order_same" if same else "trained.order_differs", **values))
