"""The walkthrough's charts for each step: one heatmap, or Q, K, V side by side, or the heads; the
matrices of the attention steps can be clicked (ui/cell_pick.py)."""

import numpy as np
import streamlit as st

from ui import block_step, cell_pick
from ui.figures import COLOURS, A_heatmap, heatmap
from ui.i18n import t
from ui.layout import plot
from ui.numbers import index, indices, sub


def pickable_plot(fig, M, rows, cols, key: str) -> None:
    """A chart whose cells can be clicked (where each cell is drawn on its own)."""
    if cell_pick.can_pick(M):
        plot(cell_pick.pickable(fig, M, rows, cols), key, pick=True)
    else:
        plot(fig, key)


def _clicked_outline(step: str, focus: int):
    """The clicked cell of this step's matrix, outlined (when it lies on the focus row)."""
    cell = st.session_state.get("_cell")
    if cell is None or cell[0] != step or cell[1] != focus:
        return None
    _, i, j = cell
    return ((i, i + 1), (j, j + 1))


def figures(step: str, data, settings, head: int, focus: int) -> None:
    tokens, tr, base = list(data.tokens), data.trace, settings.base
    dims = indices(data.E.shape[1], base)
    by_token = {
        "decimals": settings.decimals,
        "row_title": t("axis_token"),
        "col_title": t("axis_dim"),
    }
    clicked = _clicked_outline(step, focus)
    by_pair = {
        "decimals": settings.decimals,
        "row_title": t("axis_query"),
        "col_title": t("axis_key"),
        "focus_row": focus,
        "square": True,
        "outline": clicked,
    }
    forbidden = None if data.mask is None else ~data.mask
    head_name = f"{t('head')} {index(head, base)}"

    def columns_of(M):
        return indices(M.shape[1], base)

    if step == "tokens":
        plot(heatmap(data.E, tokens, dims, title=t("chart_E"), **by_token), "fig_x")
    elif step == "pe" and data.PE is not None:
        plot(heatmap(data.PE, tokens, dims, title="PE", **by_token), "fig_pe")
    elif step == "x_pe":
        title = "X = E + PE" if data.PE is not None else t("chart_X_no_pe")
        plot(heatmap(tr.X, tokens, dims, title=title, **by_token), "fig_xpe")
    elif step == "qkv":
        bound = float(max(np.abs(getattr(tr, name)[head]).max() for name in "QKV"))
        for column, name in zip(st.columns(3), ("Q", "K", "V")):
            M = getattr(tr, name)[head]
            with column:
                plot(
                    heatmap(
                        M,
                        tokens,
                        columns_of(M),
                        title=f"{name} ({head_name})",
                        bound=bound,
                        title_colour=COLOURS[name],
                        focus_row=focus,
                        **by_token,
                    ),
                    f"fig_{name}",
                )
        with st.expander(t("show_weights")):
            for column, name in zip(st.columns(3), ("W_Q", "W_K", "W_V")):
                width = data.d_v if name == "W_V" else data.d_k
                block = getattr(data.W, name)[:, head * width : (head + 1) * width]
                with column:
                    plot(
                        heatmap(
                            block,
                            dims,
                            columns_of(block),
                            title=f"{name} ({head_name})",
                            decimals=settings.decimals,
                        ),
                        f"fig_{name}",
                    )
    elif step in ("scores", "scaled", "mask"):
        field = {"scores": "S", "scaled": "S_scaled", "mask": "S_masked"}[step]
        M = getattr(tr, field)[head]
        fig = heatmap(
            M,
            tokens,
            tokens,
            title=t(f"chart_{step}"),
            forbidden=forbidden if step == "mask" else None,
            **by_pair,
        )
        pickable_plot(fig, M, tokens, tokens, f"fig_{step}")
        if step == "mask" and forbidden is not None:
            st.caption(t("masked_legend"))
    elif step == "softmax":
        title = t("chart_softmax" if forbidden is None else "chart_softmax_masked")
        A = A_heatmap(tr.A[head], tokens, title=title, forbidden=forbidden, **by_pair)
        pickable_plot(A, tr.A[head], tokens, tokens, "fig_softmax")
        st.caption(t("row_sum_note"))
    elif step == "av":
        O = tr.O[head]
        fig = heatmap(
            O,
            tokens,
            columns_of(O),
            title=f"O{sub(head + base)} = A V",
            title_colour=COLOURS["O"],
            focus_row=focus,
            outline=clicked,
            **by_token,
        )
        pickable_plot(fig, O, tokens, columns_of(O), "fig_av")
    elif step == "heads":
        left, right = st.columns(2)
        d_v = data.d_v
        concat_columns = [
            f"{t('head_short')}{c // d_v + base}·{c % d_v + base}"
            for c in range(tr.concat.shape[1])
        ]
        with left:
            plot(
                heatmap(
                    tr.concat,
                    tokens,
                    concat_columns,
                    title=t("chart_concat_1" if base else "chart_concat"),
                    focus_row=focus,
                    **by_token,
                ),
                "fig_concat",
            )
        with right:
            plot(
                heatmap(
                    tr.output, tokens, dims, title=t("chart_output"), focus_row=focus, **by_token
                ),
                "fig_output",
            )
        with st.expander(t("show_weights")):
            plot(
                heatmap(data.W.W_O, concat_columns, dims, title="W_O", decimals=settings.decimals),
                "fig_W_O",
            )
    elif step == "block":
        block_step.figures(data, settings, focus)
