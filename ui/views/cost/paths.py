"""The cost page's path lengths: how many sequential steps bring token 0's information to token
n − 1 in an RNN, a stack of convolutions with kernel k, and self-attention."""

import pandas as pd
import streamlit as st

from core.lessons.paths import attention_steps, cnn_layers, rnn_steps
from ui.figures.lines import line_chart
from ui.figures.place import plot
from ui.kit.i18n import t
from ui.kit.number_box import number_box

MAX_N = 100_000


def path_rows(n: int, k: int) -> pd.DataFrame:
    """One row per model: its number of sequential steps and how that number comes about."""
    cnn = cnn_layers(n, k)
    return pd.DataFrame(
        {
            t("cost.col_model"): [
                t("cost.model_attention"),
                t("cost.model_cnn", k=k),
                t("cost.model_rnn"),
            ],
            t("cost.col_steps"): [attention_steps(n), cnn, rnn_steps(n)],
            t("cost.col_why"): [
                t("cost.why_attention"),
                f"⌈({n} − 1) / ({k} − 1)⌉ = {cnn}",
                f"{n} − 1 = {rnn_steps(n)}",
            ],
        }
    )


def _ns(n: int, at_least: int = 512) -> list[int]:
    """2, 4, 8, … up to n (or at least up to ``at_least``, so the growth shows), and n itself:
    points for a log-log chart."""
    points, p = {n}, 2
    while p <= max(n, at_least):
        points.add(p)
        p *= 2
    return sorted(points)


def paths(n_tokens: int) -> None:
    """Number inputs for n and k, the table, and the three path lengths against n."""
    st.subheader(t("cost.paths_title"), anchor="paths")
    st.markdown(t("cost.paths_text"))
    left, right = st.columns(2)
    n = number_box(left, t("cost.paths_n"), 2, MAX_N, max(2, n_tokens), "co_paths_n")
    k = number_box(right, t("cost.paths_k"), 2, MAX_N, 3, "co_paths_k")
    st.dataframe(path_rows(n, k), hide_index=True, width="stretch")
    xs = _ns(n)
    series = {
        t("cost.model_attention"): [attention_steps(x) for x in xs],
        t("cost.model_cnn", k=k): [cnn_layers(x, k) for x in xs],
        t("cost.model_rnn"): [rnn_steps(x) for x in xs],
    }
    title = t("cost.paths_chart")
    plot(line_chart(xs, series, title=title, x_title="n", y_title=t("cost.col_steps")), "co_paths")
