"""The positional-encoding page: the PE matrix with its sine columns grouped before its cosine
columns, a few columns drawn as waves along the positions, the formula at one (pos, i), and a
sentence pair whose rows are only permuted without PE."""

import math

import numpy as np
import pandas as pd
import streamlit as st

import core
from ui.figures.heatmaps import heatmap
from ui.figures.lines import line_chart
from ui.figures.place import plot
from ui.kit.errors import show_input_error
from ui.kit.i18n import current_lang, t
from ui.kit.number_box import number_box
from ui.kit.number_text import indices, num, shown_index
from ui.kit.url import url_choice
from ui.work.traces import TraceKey, sentence_trace

# sentence pairs for the word-order lesson; ?pe_pair=<index> picks one (0: 我喜欢你 ↔ 你喜欢我)
PAIRS = (  # each the other's words reordered: every token of one is in the other
    ("我喜欢你", "你喜欢我"),
    ("狗 咬 人", "人 咬 狗"),
    ("dog bites man", "man bites dog"),
    ("Anna loves Tom", "Tom loves Anna"),
)
FIRST_PAIR = {"zh": 0, "en": 2}
OKABE_ITO = ("#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9", "#000000")
SIN_BAND, COS_BAND = "#0072B2", "#D55E00"
FORMULAS = (  # two lines, not one: side by side they ran off a phone's right edge
    r"PE_{pos,2i} = \sin\frac{pos}{10000^{2i/d_{model}}}",
    r"PE_{pos,2i+1} = \cos\frac{pos}{10000^{2i/d_{model}}}",
)


def grouped_columns(d: int) -> list[int]:
    """The PE columns in the order the page draws them: every sine column (even), then every
    cosine column (odd)."""
    return [*range(0, d, 2), *range(1, d, 2)]


def slow_dim(n: int, d: int) -> int:
    """An even (sine) column whose wave takes about half the positions shown for one period:
    slow next to column 0, yet still visibly a wave."""
    wanted = max(n / 2, 2 * math.pi)  # period 2π · 10000^(2i/d) = n / 2
    two_i = d * math.log(wanted / (2 * math.pi)) / math.log(10000)
    return int(min(max(2, 2 * round(two_i / 2)), 2 * ((d - 1) // 2)))


def matrix(decimals: int, base: int) -> tuple[np.ndarray, int, int]:
    """The size sliders and the PE matrix, sine columns first; returns (PE, n, d)."""
    left, right = st.columns(2)
    n = left.select_slider(
        t("positional_encoding.positions"), (16, 32, 64, 100, 128), value=64, key="pe_n"
    )
    d = right.select_slider(
        t("positional_encoding.width"), (8, 16, 32, 64, 128), value=64, key="pe_d"
    )
    PE = core.to_numpy(core.positional_encoding(n, d))  # [n, d]
    order = grouped_columns(d)
    half = len(range(0, d, 2))
    bands = [
        (0, half, SIN_BAND, t("positional_encoding.sin_band")),
        (half, d, COS_BAND, t("positional_encoding.cos_band")),
    ]
    figure = heatmap(
        PE[:, order],
        indices(n, base),
        [shown_index(c, base) for c in order],
        title=t("positional_encoding.matrix", n=n, d=d),
        decimals=decimals,
        row_title=t("positional_encoding.position"),
        col_title=t("walkthrough.axis_dim"),
        column_bands=bands,
    )
    plot(figure, "pe_matrix")
    st.caption(t("positional_encoding.matrix_note"))
    if base:
        st.caption(t("positional_encoding.base_note"))
    return PE, n, d


def dim_label(c: int, base: int, lang: str | None = None) -> str:
    return t(
        "positional_encoding.dim_label",
        lang,
        dim=shown_index(c, base),
        fn="sin" if c % 2 == 0 else "cos",
    )


def curves(PE: np.ndarray, base: int) -> None:
    """Columns as waves along the positions: column 0 and a slow one by default, more on request."""
    n, d = PE.shape
    st.subheader(t("positional_encoding.curves_title"))
    lang = current_lang()
    st.markdown(t("positional_encoding.curves_text", first=shown_index(0, base)))
    dims = st.multiselect(
        t("positional_encoding.dims"),
        range(d),
        default=[0, slow_dim(n, d)],
        format_func=lambda c: dim_label(c, base, lang),  # the language fixed now: see labeller
        key=f"pe_dims_{d}",
    )
    if not dims:
        st.info(t("positional_encoding.dims_hint"))
        return
    series = {dim_label(c, base): PE[:, c] for c in dims}  # in the order picked: colours stay
    figure = line_chart(
        range(base, n + base),
        series,
        title=t("positional_encoding.curves_chart"),
        x_title=t("positional_encoding.position"),
        y_title="PE",
        log=False,
        colours=[OKABE_ITO[k % len(OKABE_ITO)] for k in range(len(dims))],
        dashes=["solid" if c % 2 == 0 else "dash" for c in dims],  # cosines dashed
        marker_size=4,
        tick_every_x=False,
        y_range=(-1.1, 1.1),
    )
    plot(figure, "pe_curves")


def one_entry(n: int, d: int, decimals: int) -> None:
    """The formula evaluated at a (pos, i) the learner picks (both counted from 0, as it reads)."""
    st.subheader(t("positional_encoding.eval_title"))
    a, b = st.columns(2)
    pos = number_box(a, "pos", 0, n - 1, min(3, n - 1), "pe_pos")
    i = number_box(b, "i", 0, d // 2 - 1, min(2, d // 2 - 1), "pe_i")
    angle = pos / 10000 ** (2 * i / d)
    text = t(
        "positional_encoding.eval",
        pos=pos,
        two_i=2 * i,
        odd=2 * i + 1,
        d=d,
        angle=num(angle, decimals),
        sin=num(math.sin(angle), decimals),
        cos=num(math.cos(angle), decimals),
    )
    st.markdown(text)


def word_order(settings) -> None:
    """Each token's output row in both sentences, without PE (equal) and with it (different)."""
    st.subheader(t("positional_encoding.order_title"), anchor="word-order")
    st.markdown(t("positional_encoding.order_text"))
    codes = [str(k) for k in range(len(PAIRS))]
    chosen = url_choice(
        st.selectbox,
        t("positional_encoding.pair"),
        codes,
        "pe_pair",
        str(FIRST_PAIR[settings.lang]),
        format_func=lambda code: " ↔ ".join(PAIRS[int(code)]),
    )
    pair = PAIRS[int(chosen)]
    key = TraceKey.of(settings)
    try:
        runs = {
            pe: [sentence_trace(key.with_sentence(s, pe)) for s in pair] for pe in (False, True)
        }
    except core.InputError as error:
        show_input_error(error)
        st.stop()
    tokens_a, tokens_b = runs[False][0].tokens, runs[False][1].tokens
    rows = []
    for row_b, token in enumerate(tokens_b):
        row_a = tokens_a.index(token)
        diff = {
            pe: np.abs(runs[pe][1].trace.output[row_b] - runs[pe][0].trace.output[row_a]).max()
            for pe in (False, True)
        }
        rows.append(
            {
                "token": token,
                t("positional_encoding.row_a"): shown_index(row_a, settings.base),
                t("positional_encoding.row_b"): shown_index(row_b, settings.base),
                t("positional_encoding.diff_off"): num(diff[False], settings.decimals),
                t("positional_encoding.diff_on"): num(diff[True], settings.decimals),
            }
        )
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.caption(t("positional_encoding.order_note"))
