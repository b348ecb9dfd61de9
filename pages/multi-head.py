"""Multi-head: the split into heads drawn explicitly, every head's A, the concat and W_O."""

import numpy as np
import streamlit as st

from ui.compute import TraceKey, sentence_trace
from ui.feedback import trace_or_stop
from ui.figures import heatmap
from ui.i18n import t
from ui.layout import head_bands, head_grid, plot
from ui.settings import current

settings = current()
st.title(t("mh_title"))
st.markdown(t("mh_intro"))
data = trace_or_stop(settings)

tr, tokens, h, dec = data.trace, list(data.tokens), settings.n_heads, settings.decimals
n, d_model, d_k, d_v = data.n, settings.d_model, data.d_k, data.d_v
common = {"decimals": dec, "row_title": t("axis_token"), "col_title": t("axis_dim")}


def dims(width):
    return [str(c) for c in range(width)]


st.subheader(t("mh_split_title"))
st.markdown(t("mh_split_text"))
st.code(
    f"X [{n} × {d_model}] · W_Q [{d_model} × {h}·{d_k}] → [{n} × {h * d_k}]"
    f" → reshape [{n} × {h} × {d_k}] → transpose(0, 1) → [{h} × {n} × {d_k}]",
    language=None,
)
Q_all = data.trace.X @ data.W.W_Q  # [n, h*d_k]: computed here only to draw the split
plot(
    heatmap(
        Q_all,
        tokens,
        dims(h * d_k),
        title=t("mh_all_columns"),
        column_bands=head_bands(h, d_k),
        **common,
    ),
    "mh_q_all",
)
head_grid(tr.Q, tokens, dims(d_k), f"Q_{{h}}  [{n} × {d_k}]", "mh_q", **common)

st.subheader(t("mh_weights_title"))
st.caption(t("mh_weights_text"))
forbidden = None if data.mask is None else ~data.mask
weights_args = {"scale": "unit", "forbidden": forbidden, "forbidden_text": "0", "decimals": dec}
head_grid(tr.A, tokens, tokens, f"A_{{h}}  [{n} × {n}]", "mh_a", per_row=2, **weights_args)

st.subheader(t("mh_outputs_title"))
head_grid(tr.O, tokens, dims(d_v), "O_{h} = A_{h} V_{h}", "mh_o", **common)
plot(
    heatmap(
        tr.concat,
        tokens,
        dims(h * d_v),
        title=t("mh_concat"),
        column_bands=head_bands(h, d_v),
        **common,
    ),
    "mh_concat",
)
plot(
    heatmap(tr.output, tokens, dims(d_model), title=t("mh_output"), **common),
    "mh_output",
)

st.subheader(t("mh_compare_title"))
if h == 1:
    st.info(t("mh_single_note"))
else:
    single = sentence_trace(TraceKey.of(settings).with_heads(1))
    diff = float(np.max(np.abs(single.trace.output - tr.output)))
    st.markdown(t("mh_compare_text", h=h, diff=f"{diff:.4f}"))
    left, right = st.columns([1, 2])
    with left:
        plot(
            heatmap(
                single.trace.A[0],
                tokens,
                tokens,
                title=t("mh_one_head", d=d_model),
                **weights_args,
            ),
            "mh_single",
        )
    with right:
        plot(
            heatmap(
                single.trace.output - tr.output,
                tokens,
                dims(d_model),
                title=t("mh_diff_title", h=h),
                **common,
            ),
            "mh_diff",
        )
