"""The flash page: the online softmax tile by tile over head 0, and memory against n."""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from core.variants.flash import flash_attention, rescales, showing_tile
from ui.figures.axes import token_axes
from ui.figures.heatmaps import heatmap
from ui.figures.lines import line_chart
from ui.figures.palette import VERMILLION, ink
from ui.figures.place import grid, plot
from ui.kit.i18n import t
from ui.kit.measure_panel import arriving
from ui.kit.number_text import indices, num, power_of_ten, row_label
from ui.kit.player import player
from ui.kit.tables import table


def tiles(data, settings) -> None:
    """The tile size (opening on one whose first steps rescale) and a player over the steps."""
    tr, n = data.trace, data.n
    Q, K, V = tr.Q[0], tr.K[0], tr.V[0]  # head 0
    default = showing_tile(Q, K, V, data.mask)
    if n > 1:
        tile = st.slider(t("flash.tile"), 1, n, default, key="fl_tile")
    else:
        tile = 1
    O, steps = flash_attention(Q, K, V, tile, tile, data.mask, record=True)
    tiles_per_row = -(-n // tile)

    def draw(index: int) -> None:
        _step(data, settings, steps[index], index, len(steps), tiles_per_row)

    player(t("flash.step_slider"), len(steps), "fl_step", draw, first=1)  # steps are counted
    st.success(t("flash.equal", diff=power_of_ten(float(np.abs(O - tr.O[0]).max()))))


def _what_happened(step, tokens, base: int, dec: int) -> str:
    """One sentence on this step's rescaling: the first row whose maximum rose, if any."""
    if not np.isfinite(step.m_old).any():
        return t("flash.first_tile")
    rose = np.flatnonzero(rescales(step))
    if rose.size == 0:
        return t("flash.no_rescale")
    r = int(rose[0])
    i = step.rows[0] + r
    return t(
        "flash.rescaled",
        row=row_label(i, tokens[i], base),
        old=num(step.m_old[r], dec),
        new=num(step.m[r], dec),
        factor=num(step.rescale[r], dec),
    )


def _scores(data, settings, step):
    """S / √d_k with the current tile outlined and its smallest rescale written above it."""
    tokens, base, dec = list(data.tokens), settings.base, settings.decimals
    forbidden = None if data.mask is None else ~data.mask
    fig = heatmap(
        data.trace.S_masked[0],
        tokens,
        tokens,
        title=t("flash.scores", head=base),
        decimals=dec,
        forbidden=forbidden,
        square=True,
        outline=(step.rows, step.cols),
    )
    rose = rescales(step)
    if rose.any() and data.n <= 160:
        fig = go.Figure(fig)  # a copy: the heatmap is shared between sessions
        fig.add_annotation(
            x=(step.cols[0] + step.cols[1] - 1) / 2,
            y=step.rows[0] - 0.5,
            yanchor="bottom",
            text=t("flash.rescale_note", factor=num(step.rescale[rose].min(), dec)),
            showarrow=False,
            font={"color": ink(VERMILLION), "size": 13},  # 4.5:1 on white, its hue kept
            bgcolor="rgba(255,255,255,0.85)",
        )
    return fig


def _step(data, settings, step, index: int, count: int, tiles_per_row: int) -> None:
    """One step: where it is, what it rescaled, the scores, the rows' state and their output."""
    tokens, base, dec = list(data.tokens), settings.base, settings.decimals
    qi, kj = index // tiles_per_row + base, index % tiles_per_row + base
    where = t(
        "flash.step", s=index + 1, count=count, qi=qi, kj=kj
    )  # tiles are labels, steps counted
    st.markdown(f"**{where}**")
    st.markdown(_what_happened(step, tokens, base, dec))
    plot(_scores(data, settings, step), "fl_scores")
    rows = range(*step.rows)
    st.subheader(t("flash.state"))
    state = {
        t("flash.row"): [row_label(i, tokens[i], base) for i in rows],
        t("flash.m_old"): [num(v, dec) if np.isfinite(v) else "−∞" for v in step.m_old],
        t("flash.m"): [num(v, dec) if np.isfinite(v) else "−∞" for v in step.m],
        t("flash.rescale"): [num(v, dec) for v in step.rescale],
        t("flash.l"): [num(v, dec) for v in step.l],
    }
    table(state)
    final = data.trace.O[0][step.rows[0] : step.rows[1]]
    bound = float(max(np.abs(final).max(), np.abs(step.partial).max())) or 1.0
    common = {
        **token_axes(dec),
        "bound": bound,
    }
    dims, row_tokens = indices(final.shape[1], base), [tokens[i] for i in rows]
    grid(
        [
            (
                heatmap(step.partial, row_tokens, dims, title=t("flash.partial"), **common),
                "fl_partial",
            ),
            (heatmap(final, row_tokens, dims, title="softmax(S) V", **common), "fl_final"),
        ],
        per_row=2,
    )


def _memory_chart(memory: dict) -> None:
    series = {t("flash.full"): memory["full"], t("flash.tiled"): memory["tiled"]}
    title = t("flash.memory_title")
    y_title = t("flash.memory_axis")
    plot(line_chart(memory["n"], series, title=title, x_title="n", y_title=y_title), "fl_memory")


def memory() -> None:
    """Peak memory of the full n x n against the tiles, measured once per server (in a child)."""
    st.subheader(t("flash.memory_title"))
    st.caption(t("flash.memory_text"))
    arriving(("flash_memory",), "flash_memory", {}, _memory_chart)
