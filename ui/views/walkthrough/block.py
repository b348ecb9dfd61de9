"""The walkthrough's last step: the rest of the Transformer block around attention, with the
learner's own numbers (core/block.py): residual, LayerNorm, feed-forward network, residual,
LayerNorm."""

from functools import lru_cache

import numpy as np
import streamlit as st

from core.block import EPS, block, init_feed_forward
from ui.figures.axes import token_axes
from ui.figures.heatmaps import heatmap
from ui.figures.place import grid
from ui.kit.escape import markdown_text
from ui.kit.i18n import t
from ui.kit.number_text import indices, num, power_of_ten, sub
from ui.kit.shared_cache import CLASS, shared

FORMULA = (
    r"H = X + \text{MultiHead}(X),\quad N = \text{LayerNorm}(H),\quad "
    r"F = \max(0,\, N W_1 + b_1)\, W_2 + b_2,\quad Y = \text{LayerNorm}(N + F)"
)
PANELS = ("H", "N", "F", "Y")


@lru_cache(maxsize=8)
def _feed_forward(d_model: int, seed: int):
    return init_feed_forward(d_model, seed)


def block_of(data, seed: int):
    """The block's intermediates for this sentence: computed once and shared by every session and
    both uses of a run (the charts and the worked row), as the trace itself is."""
    return _block(data.trace.X, data.trace.output, seed)


@shared(max_entries=CLASS)
def _block(X, attention_out, seed: int):
    return block(X, attention_out, _feed_forward(X.shape[1], seed))


def shapes(data) -> str:
    n, d = data.trace.X.shape
    return (
        f"X [{n} × {d}] + MultiHead(X) [{n} × {d}] → H [{n} × {d}];   "
        f"N [{n} × {d}] × W_1 [{d} × {4 * d}] → [{n} × {4 * d}] × W_2 [{4 * d} × {d}] → "
        f"F [{n} × {d}];   Y [{n} × {d}]"
    )


def draw_charts(data, settings, focus: int, part: int | None = None) -> None:
    """H, N, F and Y two to a row; on a projector (``part``) the one it pages to, alone."""
    out = block_of(data, settings.seed)
    tokens = list(data.tokens)
    dims = indices(out.Y.shape[1], settings.base)
    bound = float(max(np.abs(getattr(out, name)).max() for name in PANELS))
    names = PANELS if part is None else PANELS[min(part, len(PANELS) - 1) :][:1]
    grid(
        (
            (
                heatmap(
                    getattr(out, name),
                    tokens,
                    dims,
                    title=t(f"walkthrough.block_chart_{name}"),
                    bound=bound,
                    focus_row=focus,
                    **token_axes(settings.decimals),
                ),
                f"fig_block_{name}",
            )
            for name in names
        ),
        per_row=2 if part is None else 1,
        fill=True,
    )
    with st.expander(t("walkthrough.block_weights")):
        ff = _feed_forward(out.Y.shape[1], settings.seed)
        st.caption(t("walkthrough.block_weights_note", d_ff=ff.W_1.shape[1]))
        grid(
            (
                (heatmap(ff.W_1, dims, indices(ff.W_1.shape[1], settings.base), title="W_1",
                         decimals=settings.decimals), "fig_W_1"),
                (heatmap(ff.W_2, indices(ff.W_2.shape[0], settings.base), dims, title="W_2",
                         decimals=settings.decimals), "fig_W_2"),
            ),
            per_row=2,
        )  # fmt: skip


def focus_lines(data, settings, i: int) -> list[str]:
    """Row i through the block: the residual sum, LayerNorm's mean and variance, the FFN."""
    out = block_of(data, settings.seed)
    dec, si = settings.decimals, sub(i + settings.base)

    def vec(v):
        shown = ", ".join(num(x, dec) for x in v[:8])
        return f"[{shown}{', …' if len(v) > 8 else ''}]"

    def norm_lines(source_name, result_name, source, result):
        mu, var = float(source.mean()), float(source.var())
        return [
            t("walkthrough.block_mean", of=source_name, mu=num(mu, dec), var=num(var, dec)),
            t(
                "walkthrough.block_norm",
                result=result_name,
                source=source_name,
                values=vec(result),
                eps=power_of_ten(EPS),
            ),
        ]

    zeros = int((out.hidden[i] == 0).sum())
    h, n = f"h{si}", f"n{si}"
    return [
        f"{h} = x{si} + MultiHead(X){si} = {vec(out.X[i])} + {vec(out.attention[i])} = "
        f"{vec(out.H[i])}",
        *norm_lines(h, n, out.H[i], out.N[i]),
        t("walkthrough.block_ffn", si=si, d_ff=out.hidden.shape[1], zeros=zeros),
        f"f{si} = {vec(out.F[i])}",
        *norm_lines(f"{n} + f{si}", f"y{si}", out.N[i] + out.F[i], out.Y[i]),
        t("walkthrough.block_y", si=si, token=markdown_text(data.tokens[i])),
    ]
