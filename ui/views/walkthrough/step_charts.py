"""The walkthrough's charts, one function per step (named in its row of steps.py): one heatmap, or
Q, K, V side by side, or the heads; the matrices of the attention steps can be clicked
(ui/figures/pickable.py)."""

from dataclasses import dataclass

import numpy as np
import streamlit as st

from ui.figures import pickable, place
from ui.figures.axes import pair_axes, token_axes
from ui.figures.heatmaps import A_heatmap, heatmap, mask_heatmap
from ui.figures.palette import COLOURS
from ui.kit.i18n import t
from ui.kit.number_text import indices, shown_index, sub
from ui.kit.session import CELL
from ui.views.walkthrough import block as block_step


@dataclass(frozen=True)
class Charts:
    """What every step's charts draw from: the trace, the settings, the head and the focus row,
    with the two styles of heatmap (token × dimension, query × key)."""

    step: str
    data: object
    settings: object
    head: int
    focus: int
    by_token: dict
    by_pair: dict
    part: int | None = None  # on a projector, the one chart of a wide step shown (None: all)

    @classmethod
    def of(cls, step: str, data, settings, head: int, focus: int, part=None) -> "Charts":
        by_token = token_axes(settings.decimals)
        by_pair = pair_axes(settings.decimals, focus_row=focus, square=True,
                            outline=_clicked_outline(step, focus))  # fmt: skip
        return cls(step, data, settings, head, focus, by_token, by_pair, part)

    def side_by_side(self, *charts, weights=None) -> None:
        """A step's charts (each a callable that draws one) in columns side by side; on a
        projector only the part it pages to, alone, with the screen's height."""
        if self.part is not None:
            charts[min(self.part, len(charts) - 1)]()
            return
        for column, chart in zip(st.columns(weights or len(charts)), charts, strict=True):
            with column:
                chart()

    @property
    def tokens(self) -> list:
        return list(self.data.tokens)

    @property
    def forbidden(self):
        return None if self.data.mask is None else ~self.data.mask

    def columns(self, M) -> list:
        return indices(M.shape[1], self.settings.base)

    @property
    def dims(self) -> list:
        return indices(self.data.E.shape[1], self.settings.base)

    @property
    def head_name(self) -> str:
        return f"{t('walkthrough.head')} {shown_index(self.head, self.settings.base)}"


def plot(fig, key: str, pick: bool = False) -> None:
    """A step's chart: on a projector it fills the height the band leaves."""
    place.plot(fig, key, pick=pick, fill=True)


def pickable_plot(fig, M, rows, cols, key: str) -> None:
    """A chart whose cells can be clicked (where each cell is drawn on its own)."""
    if pickable.can_pick(M):
        plot(pickable.pickable(fig, M, rows, cols), key, pick=True)
    else:
        plot(fig, key)


def _clicked_outline(step: str, focus: int):
    """The clicked cell of this step's matrix, outlined (when it lies on the focus row)."""
    cell = st.session_state.get(CELL)
    if cell is None or cell[0] != step or cell[1] != focus:
        return None
    _, i, j = cell
    return ((i, i + 1), (j, j + 1))


def tokens(c: Charts) -> None:
    plot(heatmap(c.data.E, c.tokens, c.dims, title=t("walkthrough.chart_E"), **c.by_token), "fig_x")


def pe(c: Charts) -> None:
    if c.data.PE is not None:  # (off: the step's note says so)
        plot(heatmap(c.data.PE, c.tokens, c.dims, title="PE", **c.by_token), "fig_pe")


def x_pe(c: Charts) -> None:
    title = "X = E + PE" if c.data.PE is not None else t("walkthrough.chart_X_no_pe")
    plot(heatmap(c.data.trace.X, c.tokens, c.dims, title=title, **c.by_token), "fig_xpe")


def qkv(c: Charts) -> None:
    """Q, K and V of one head on one colour scale, and the head's slices of W_Q, W_K, W_V."""
    tr, head = c.data.trace, c.head
    bound = float(max(np.abs(getattr(tr, name)[head]).max() for name in "QKV"))

    def chart(name: str):
        M = getattr(tr, name)[head]
        fig = heatmap(M, c.tokens, c.columns(M), title=f"{name} ({c.head_name})", bound=bound,
                      title_colour=COLOURS[name], focus_row=c.focus, **c.by_token)  # fmt: skip
        return lambda: plot(fig, f"fig_{name}")

    c.side_by_side(*(chart(name) for name in ("Q", "K", "V")))
    with st.expander(t("walkthrough.show_weights")):
        for column, name in zip(st.columns(3), ("W_Q", "W_K", "W_V")):
            width = c.data.d_v if name == "W_V" else c.data.d_k
            W = getattr(c.data.W, name)[:, head * width : (head + 1) * width]
            with column:
                fig = heatmap(W, c.dims, c.columns(W), title=f"{name} ({c.head_name})",
                              decimals=c.settings.decimals)  # fmt: skip
                place.plot(fig, f"fig_{name}")


def _score_map(c: Charts, field: str, forbidden=None, bound=None) -> None:
    """S, S ÷ √d_k or the masked scores of one head, each cell clickable."""
    M = getattr(c.data.trace, field)[c.head]
    title = t(f"walkthrough.chart_{c.step}")
    fig = heatmap(M, c.tokens, c.tokens, title=title, forbidden=forbidden, bound=bound,
                  **c.by_pair)  # fmt: skip
    pickable_plot(fig, M, c.tokens, c.tokens, f"fig_{c.step}")


def scores(c: Charts) -> None:
    _score_map(c, "S")


def scaled(c: Charts) -> None:
    """On S's own colour range: the shrinking shows as paler colours."""
    bound = float(np.abs(c.data.trace.S[c.head]).max())
    _score_map(c, "S_scaled", bound=bound)
    st.caption(
        t("walkthrough.scaled_same_scale", d_k=c.data.d_k, root=f"{np.sqrt(c.data.d_k):.4g}")
    )


def _try_mask() -> None:
    st.session_state["mask"] = "causal" if st.session_state["mask_try"] else "none"


def mask_switch(mask: str) -> None:
    """The mask step's own switch for the causal mask (the sidebar's setting), drawn in the row
    of pickers above its chart (view.row_controls), so that the chart starts higher."""
    st.session_state["mask_try"] = mask == "causal"
    st.toggle(t("walkthrough.mask_try"), key="mask_try", on_change=_try_mask)


def mask(c: Charts) -> None:
    """The masked scores and the 0/1 mask M side by side (the switch: mask_switch)."""
    n = c.data.n
    allowed = np.ones((n, n), bool) if c.data.mask is None else np.asarray(c.data.mask, bool)
    legend = (t("masks.allowed"), t("masks.forbidden"))
    M = mask_heatmap(allowed, c.tokens, c.tokens, title=t("walkthrough.chart_mask_M"),
                     legend=legend)  # fmt: skip
    scores_map = lambda: _score_map(c, "S_masked", c.forbidden)  # noqa: E731
    c.side_by_side(scores_map, lambda: plot(M, "fig_mask_M"), weights=[3, 2])  # (a phone stacks
    # them: the scores first)
    if c.forbidden is not None:
        st.caption(t("walkthrough.masked_legend"))


def softmax(c: Charts) -> None:
    title = t(
        "walkthrough.chart_softmax" if c.forbidden is None else "walkthrough.chart_softmax_masked"
    )
    A = c.data.trace.A[c.head]
    fig = A_heatmap(A, c.tokens, title=title, forbidden=c.forbidden, **c.by_pair)
    pickable_plot(fig, A, c.tokens, c.tokens, "fig_softmax")
    st.caption(t("walkthrough.row_sum_note"))


def av(c: Charts) -> None:
    """A (its focus row boxed), V and O = AV side by side: row i of O mixes V's rows with the
    weights of row i of A."""
    tr, base = c.data.trace, c.settings.base
    O, V, A = tr.O[c.head], tr.V[c.head], tr.A[c.head]
    by_pair = {**c.by_pair, "outline": None}  # a clicked cell is O's
    weights = A_heatmap(A, c.tokens, title="A", forbidden=c.forbidden, **by_pair)
    values = heatmap(V, c.tokens, c.columns(V), title=f"V ({c.head_name})",
                     title_colour=COLOURS["V"], **c.by_token)  # fmt: skip
    output = heatmap(O, c.tokens, c.columns(O), title=f"O{sub(c.head + base)} = A V",
                     title_colour=COLOURS["O"], focus_row=c.focus, outline=c.by_pair["outline"],
                     **c.by_token)  # fmt: skip
    c.side_by_side(
        lambda: plot(weights, "fig_av_A"),
        lambda: plot(values, "fig_av_V"),
        lambda: pickable_plot(output, O, c.tokens, c.columns(O), "fig_av"),
    )


def heads(c: Charts) -> None:
    """The heads' outputs side by side (the concat), the layer's output, and W_O."""
    tr, base, d_v = c.data.trace, c.settings.base, c.data.d_v
    concat_columns = [
        f"{t('walkthrough.head_short')}{j // d_v + base}·{j % d_v + base}"
        for j in range(tr.concat.shape[1])
    ]
    title = t("walkthrough.chart_concat_1" if base else "walkthrough.chart_concat")
    concat = heatmap(tr.concat, c.tokens, concat_columns, title=title, focus_row=c.focus,
                     **c.by_token)  # fmt: skip
    title = t("walkthrough.chart_output")
    output = heatmap(tr.output, c.tokens, c.dims, title=title, focus_row=c.focus, **c.by_token)
    c.side_by_side(lambda: plot(concat, "fig_concat"), lambda: plot(output, "fig_output"))
    with st.expander(t("walkthrough.show_weights")):
        W_O = heatmap(c.data.W.W_O, concat_columns, c.dims, title="W_O",
                      decimals=c.settings.decimals)  # fmt: skip
        place.plot(W_O, "fig_W_O")


def block(c: Charts) -> None:
    block_step.draw_charts(c.data, c.settings, c.focus, c.part)
