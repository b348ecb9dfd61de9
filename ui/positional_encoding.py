"""The positional-encoding page: the PE matrix, its sine and cosine columns, the formula at one
(pos, i), and a sentence pair whose rows are only permuted without PE."""

import math

import numpy as np
import pandas as pd
import streamlit as st

import core
from ui.compute import TraceKey, sentence_trace
from ui.feedback import show_input_error
from ui.figures import heatmap, line_chart
from ui.i18n import t
from ui.layout import plot
from ui.numbers import num

PAIRS = {
    "zh": (("我喜欢你", "你喜欢我"), ("狗 咬 人", "人 咬 狗"), ("I love you", "you love me")),
    "en": (
        ("dog bites man", "man bites dog"),
        ("I love you", "you love me"),
        ("我喜欢你", "你喜欢我"),
    ),
}
FORMULA = (
    r"PE_{pos,2i} = \sin\frac{pos}{10000^{2i/d_{model}}},\qquad "
    r"PE_{pos,2i+1} = \cos\frac{pos}{10000^{2i/d_{model}}}"
)


def matrix() -> tuple[np.ndarray, int, int]:
    """The size sliders and the PE matrix; returns (PE, n, d)."""
    left, right = st.columns(2)
    n = left.select_slider(t("pe_positions"), (8, 16, 32, 64, 128), value=32, key="pe_n")
    d = right.select_slider(t("pe_width"), (8, 16, 32, 64, 128), value=64, key="pe_d")
    PE = core.to_numpy(core.positional_encoding(n, d))  # [n, d]
    positions, columns = [str(p) for p in range(n)], [str(c) for c in range(d)]
    labels = {"row_title": t("pe_position"), "col_title": t("axis_dim")}
    figure = heatmap(PE, positions, columns, title=t("pe_matrix", n=n, d=d), decimals=2, **labels)
    plot(figure, "pe_matrix")
    return PE, n, d


def curves(PE: np.ndarray) -> None:
    n, d = PE.shape
    st.subheader(t("pe_curves_title"))
    default = [0, 1, 4, 5, min(d - 2, 20)]
    dims = st.multiselect(t("pe_dims"), range(d), default=default, key="pe_dims")
    if not dims:
        st.info(t("pe_dims_hint"))
        return
    series = {f"{'sin' if c % 2 == 0 else 'cos'} · {c}": PE[:, c] for c in sorted(dims)}
    title, x_title = t("pe_curves_title"), t("pe_position")
    plot(
        line_chart(range(n), series, title=title, x_title=x_title, y_title="PE", log=False),
        "pe_curves",
    )


def one_entry(n: int, d: int) -> None:
    """The formula evaluated at a (pos, i) the learner picks."""
    st.subheader(t("pe_eval_title"))
    a, b = st.columns(2)
    pos = a.number_input("pos", 0, n - 1, min(3, n - 1), key="pe_pos")
    i = b.number_input("i", 0, d // 2 - 1, min(2, d // 2 - 1), key="pe_i")
    angle = pos / 10000 ** (2 * i / d)
    sin, cos = num(math.sin(angle), 6), num(math.cos(angle), 6)
    text = t(
        "pe_eval", pos=pos, two_i=2 * i, odd=2 * i + 1, d=d, angle=num(angle, 6), sin=sin, cos=cos
    )
    st.markdown(text)


def word_order(settings) -> None:
    """Each token's output row in both sentences, without PE (equal) and with it (different)."""
    st.subheader(t("pe_order_title"))
    st.markdown(t("pe_order_text"))
    pair = st.selectbox(t("pe_pair"), PAIRS[settings.lang], format_func=" ↔ ".join, key="pe_pair")
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
                t("pe_row_a"): row_a,
                t("pe_row_b"): row_b,
                t("pe_diff_off"): f"{diff[False]:.1e}",
                t("pe_diff_on"): f"{diff[True]:.3f}",
            }
        )
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
