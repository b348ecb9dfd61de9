"""The projections page: X Xᵀ beside (X W_Q)(X W_K)ᵀ with what the numbers show, the weights each
token keeps on itself, and Q, K, V as a hard against a soft lookup."""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from core.lessons import projections
from ui.figures.heatmaps import A_heatmap, heatmap
from ui.figures.palette import MAX_TEXT_CELLS, SharedFigure
from ui.figures.place import grid, plot
from ui.kit.choose import selectbox
from ui.kit.escape import markdown_text, plotly_text
from ui.kit.i18n import t
from ui.kit.number_text import num, row_label, shown_index, sub
from ui.kit.shared_cache import shared
from ui.kit.tables import table

NO_PROJECTION = "#CC79A7"  # Okabe-Ito reddish purple: scores of X with itself
PROJECTED = "#0072B2"  # Okabe-Ito blue: scores through W_Q and W_K
HARD = "#555555"  # dark grey: the one key a hard lookup returns
TEMPERATURES = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 10.0)


def labels(data, base: int) -> list[str]:
    """'1 · movie': each row's number (from the sidebar's base) and its token."""
    return [row_label(i, token, base) for i, token in enumerate(data.tokens)]


def head_picker(data, settings) -> int:
    heads = data.trace.Q.shape[0]
    if heads == 1:
        return 0
    pick = selectbox(
        st.columns([1, 3])[0],
        t("projections.head"),
        range(heads),
        format_func=lambda h: shown_index(h, settings.base),
        key="pj_head",
    )
    return int(pick)


def pair_for(data, head: int) -> projections.ScorePair:
    tr = data.trace
    return projections.score_pair(tr.X, tr.S[head], tr.S_scaled[head])


def scores_side_by_side(data, pair, settings, head: int) -> None:
    """The two S panels on one colour range, then what the numbers say about them."""
    names, decimals = labels(data, settings.base), settings.decimals
    bound = float(max(np.abs(pair.S_X).max(), np.abs(pair.S_QK).max(), 1e-12))
    common = {
        "decimals": decimals,
        "bound": bound,
        "col_title": t("projections.axis_key"),
        "square": True,
    }
    h = shown_index(head, settings.base)
    grid(
        [
            (heatmap(pair.S_X, names, names, title=t("projections.S_X"), **common), "pj_S_X"),
            (
                heatmap(pair.S_QK, names, names, title=t("projections.S_QK", h=h), **common),
                "pj_S_QK",
            ),
        ],
        per_row=2,
    )
    st.caption(f"{t('projections.shared_range')} {t('projections.random_note')}")
    st.subheader(t("projections.notice"))
    for line in findings(data, pair, settings.base, decimals):
        st.markdown(f"- {line}")


def findings(data, pair, base: int, decimals: int) -> list[str]:
    """The statements about symmetry and the diagonal, checked on these very numbers."""
    n, names = data.n, [markdown_text(token) for token in data.tokens]  # quoted in the text
    if n == 1:
        return [t("projections.one_token", ii=sub(base, base))]
    lines = [t("projections.X_symmetric", gap=num(projections.asymmetry(pair.S_X).gap, decimals))]
    odd = projections.asymmetry(pair.S_QK)
    if odd.symmetric:
        lines.append(t("projections.QK_symmetric_by_chance", gap=num(odd.gap, decimals)))
    else:
        i, j = odd.i, odd.j
        lines.append(
            t(
                "projections.QK_symmetric",
                ij=sub(i + base, j + base),
                ji=sub(j + base, i + base),
                a=num(pair.S_QK[i, j], decimals),
                b=num(pair.S_QK[j, i], decimals),
                row=names[i],
                col=names[j],
            )
        )
    lines.append(_diagonal_of_X(data, pair, base, decimals))
    wins = sum(w.diagonal_wins for w in projections.row_winners(pair.S_QK))
    key = "QK_diagonal_all" if wins == n else "QK_diagonal_none" if not wins else "QK_diagonal"
    lines.append(t(f"projections.{key}", wins=wins, n=n))
    return lines


def _diagonal_of_X(data, pair, base: int, decimals: int) -> str:
    lengths = np.linalg.norm(np.asarray(data.trace.X, dtype=np.float64), axis=1)  # |x_i|
    winners = projections.row_winners(pair.S_X)
    broken = [w for w in winners if not w.diagonal_wins]
    if not broken:
        shortest, longest = num(lengths.min(), decimals), num(lengths.max(), decimals)
        return t("projections.X_diagonal_all", shortest=shortest, longest=longest)
    rows = [
        t(
            "projections.X_diagonal_broken",
            row=markdown_text(row_label(w.i, data.tokens[w.i], base)),
            ij=sub(w.i + base, w.j + base),
            ii=sub(w.i + base, w.i + base),
            i=sub(w.i + base),
            j=sub(w.j + base),
            s_ij=num(pair.S_X[w.i, w.j], decimals),
            s_ii=num(pair.S_X[w.i, w.i], decimals),
            long=num(lengths[w.j], decimals),
            short=num(lengths[w.i], decimals),
        )
        for w in broken
    ]
    head = t("projections.X_diagonal_some", wins=data.n - len(broken), n=data.n)
    return head + "".join(f"\n    - {row}" for row in rows)


def weights_side_by_side(data, pair, settings, head: int) -> None:
    """Both softmaxes, and the weight each token keeps on itself."""
    names, decimals, h = (
        labels(data, settings.base),
        settings.decimals,
        shown_index(head, settings.base),
    )
    st.subheader(t("projections.weights_title"))
    self_X, self_QK = projections.self_weights(pair.A_X), projections.self_weights(pair.A_QK)
    st.markdown(
        t(
            "projections.weights_text",
            root_model=num(np.sqrt(data.trace.X.shape[1]), decimals),
            root_k=num(np.sqrt(data.d_k), decimals),
            self_x=num(self_X.mean(), decimals),
            self_qk=num(self_QK.mean(), decimals),
        )
    )
    A_args = {"decimals": decimals, "col_title": t("projections.axis_key"), "square": True}
    grid(
        [
            (A_heatmap(pair.A_X, names, title=t("projections.A_X"), **A_args), "pj_A_X"),
            (A_heatmap(pair.A_QK, names, title=t("projections.A_QK", h=h), **A_args), "pj_A_QK"),
        ],
        per_row=2,
    )
    series = {
        t("projections.self_X"): (self_X, NO_PROJECTION),
        t("projections.self_QK"): (self_QK, PROJECTED),
    }
    plot(bars(names, series, t("projections.self_title"), decimals, top=1.0), "pj_self")


@shared(max_entries=40)
def bars(names, series: dict, title: str, decimals: int, top: float) -> go.Figure:
    """Grouped bars, one group per token: {name: (values, colour)}, each value printed. Shared
    between sessions, as the heatmaps are."""
    fig = SharedFigure()
    for name, (values, colour) in series.items():
        fig.add_trace(
            go.Bar(
                x=[plotly_text(label) for label in names],
                y=list(map(float, values)),
                name=plotly_text(name),
                marker_color=colour,
                text=[num(v, decimals) for v in values] if len(names) <= MAX_TEXT_CELLS else None,
                textposition="outside",
            )
        )
    fig.update_layout(
        barmode="group",
        title={"text": plotly_text(title), "x": 0},
        yaxis={"range": [0, top * 1.15]},
        xaxis={"type": "category"},
        height=340,
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        legend={"orientation": "h", "y": -0.2},
        plot_bgcolor="white",
    )
    return fig


def lookup_section(data, settings, head: int) -> None:
    """Pick a query token: its scores against every key, the hard and the soft answer."""
    decimals, names = settings.decimals, labels(data, settings.base)
    st.subheader(t("projections.lookup_title"), anchor="lookup")
    st.markdown(t("projections.lookup_text"))
    left, right = st.columns(2)
    i = selectbox(
        left, t("projections.query"), range(data.n), format_func=names.__getitem__, key="pj_q"
    )
    T = right.select_slider(
        t("projections.temperature"),
        TEMPERATURES,
        value=1.0,
        key="pj_T",
        help=t("projections.temperature_help"),
    )
    tr = data.trace
    found = projections.lookup(tr.Q[head][i], tr.K[head], tr.V[head], temperature=float(T))
    hard = np.zeros(data.n)
    hard[found.best] = 1.0
    series = {
        t("projections.hard"): (hard, HARD),
        t("projections.soft"): (found.weights, PROJECTED),
    }
    title = t("projections.lookup_chart", query=names[i])
    plot(bars(names, series, title, decimals, top=1.0), "pj_lookup")

    def vector(v) -> str:
        return "[" + ", ".join(num(x, decimals) for x in v) + "]"

    table({
        t("projections.col_key"): names,
        t("projections.col_score"): [num(s, decimals) for s in found.scores],
        t("projections.col_hard"): [num(w, decimals) for w in hard],
        t("projections.col_soft"): [num(w, decimals) for w in found.weights],
        t("projections.col_value"): [vector(v) for v in tr.V[head]],
    })  # fmt: skip
    st.markdown(
        t(
            "projections.answers",
            best=markdown_text(names[found.best]),
            hard=vector(found.hard),
            soft=vector(found.soft),
            top=num(found.weights[found.best], decimals),
        )
    )
    st.info(t("projections.why_soft"))
