"""FlashAttention's tiles: the same A V, tile by tile, with the online softmax; memory against n."""

import numpy as np
import pandas as pd
import streamlit as st

from core.flash import flash_attention
from ui.compute import flash_memory
from ui.feedback import trace_or_stop
from ui.figures import heatmap, line_chart
from ui.i18n import t
from ui.layout import grid, plot
from ui.numbers import num
from ui.settings import current

settings = current()
st.title(t("fl_title"))
st.markdown(t("fl_intro"))
data = trace_or_stop(settings)
tr, tokens, dec, n = data.trace, list(data.tokens), settings.decimals, data.n
Q, K, V = tr.Q[0], tr.K[0], tr.V[0]  # head 0
allowed = data.mask
tile = st.slider(t("fl_tile"), 1, max(1, n), min(2, n), key="fl_tile")
O, steps = flash_attention(Q, K, V, tile, tile, allowed, record=True)
index = st.slider(t("fl_step_slider"), 1, len(steps), len(steps), key="fl_step") - 1
step = steps[index]
tiles_per_row = -(-n // tile)
st.markdown(f"**{t('fl_step', qi=index // tiles_per_row, kj=index % tiles_per_row)}**")

fig = heatmap(
    tr.S_masked[0],
    tokens,
    tokens,
    title=t("fl_scores"),
    decimals=dec,
    forbidden=None if allowed is None else ~allowed,
    square=True,
    outline=(step.rows, step.cols),
)
plot(fig, "fl_scores")

rows = range(*step.rows)
st.subheader(t("fl_state"))
state = pd.DataFrame(
    {
        t("fl_row"): [f"{i} · {tokens[i]}" for i in rows],
        t("fl_m"): [num(v, 4) if np.isfinite(v) else "−∞" for v in step.m],
        t("fl_l"): [num(v, 4) for v in step.l],
        t("fl_rescale"): [num(v, 4) for v in step.rescale],
    }
)
st.dataframe(state, hide_index=True, width="stretch")
common = {"decimals": dec, "row_title": t("axis_token"), "col_title": t("axis_dim")}
dims = [str(c) for c in range(V.shape[1])]
grid(
    [
        (
            heatmap(step.partial, [tokens[i] for i in rows], dims, title=t("fl_partial"), **common),
            "fl_partial",
        ),
        (
            heatmap(
                tr.O[0][step.rows[0] : step.rows[1]],
                [tokens[i] for i in rows],
                dims,
                title="softmax(S) V",
                **common,
            ),
            "fl_final",
        ),
    ],
    per_row=2,
)
st.success(t("fl_equal", diff=f"{np.abs(O - tr.O[0]).max():.1e}"))

st.subheader(t("fl_memory_title"))
st.caption(t("fl_memory_text"))
memory = flash_memory()
plot(
    line_chart(
        memory["n"],
        {t("fl_full"): memory["full"], t("fl_tiled"): memory["tiled"]},
        title=t("fl_memory_title"),
        x_title="n",
        y_title="MB",
    ),
    "fl_memory",
)
