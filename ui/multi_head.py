"""The multi-head page: X W_Q split into heads, every head's A and O, the concat and W_O, and one
wide head against several with the same weights."""

import numpy as np
import streamlit as st

from ui import code_lines
from ui.compute import TraceKey, sentence_trace
from ui.figures import heatmap
from ui.i18n import t
from ui.layout import head_bands, head_grid, plot


def dims(width: int) -> list[str]:
    return [str(c) for c in range(width)]


def _common(decimals: int) -> dict:
    return {"decimals": decimals, "row_title": t("axis_token"), "col_title": t("axis_dim")}


def _A_args(data, decimals: int) -> dict:
    forbidden = None if data.mask is None else ~data.mask
    return {"scale": "unit", "forbidden": forbidden, "forbidden_text": "0", "decimals": decimals}


def split(data, settings) -> None:
    """X W_Q as one matrix with its head bands, then each head's Q."""
    tokens, h, n, d_k, d_model = (
        list(data.tokens),
        settings.n_heads,
        data.n,
        data.d_k,
        settings.d_model,
    )
    st.subheader(t("mh_split_title"))
    st.markdown(t("mh_split_text"))
    code_lines.show(("Q",))
    st.code(
        f"X [{n} × {d_model}] · W_Q [{d_model} × {h}·{d_k}] → [{n} × {h * d_k}]"
        f" → reshape [{n} × {h} × {d_k}] → transpose(0, 1) → [{h} × {n} × {d_k}]",
        language=None,
    )
    Q_all = data.trace.X @ data.W.W_Q  # [n, h·d_k]: computed here only to draw the split
    common = _common(settings.decimals)
    figure = heatmap(
        Q_all,
        tokens,
        dims(h * d_k),
        title=t("mh_all_columns"),
        column_bands=head_bands(h, d_k),
        **common,
    )
    plot(figure, "mh_q_all")
    head_grid(data.trace.Q, tokens, dims(d_k), f"Q_{{h}}  [{n} × {d_k}]", "mh_q", **common)


def every_head(data, settings) -> None:
    """Each head's A, each head's O, then the concat and the output."""
    tr, tokens, n, h, d_v = data.trace, list(data.tokens), data.n, settings.n_heads, data.d_v
    common = _common(settings.decimals)
    st.subheader(t("mh_weights_title"))
    st.caption(t("mh_weights_text"))
    weights = _A_args(data, settings.decimals)
    head_grid(tr.A, tokens, tokens, f"A_{{h}}  [{n} × {n}]", "mh_a", per_row=2, **weights)
    st.subheader(t("mh_outputs_title"))
    code_lines.show(("concat", "output"))
    head_grid(tr.O, tokens, dims(d_v), "O_{h} = A_{h} V_{h}", "mh_o", **common)
    bands = head_bands(h, d_v)
    concat = heatmap(
        tr.concat, tokens, dims(h * d_v), title=t("mh_concat"), column_bands=bands, **common
    )
    plot(concat, "mh_concat")
    output = heatmap(tr.output, tokens, dims(settings.d_model), title=t("mh_output"), **common)
    plot(output, "mh_output")


def one_wide_head(data, settings) -> None:
    """The same weights as one head of width d_model: its A and how the output differs."""
    h, tokens, d_model = settings.n_heads, list(data.tokens), settings.d_model
    st.subheader(t("mh_compare_title"))
    if h == 1:
        st.info(t("mh_single_note"))
        return
    single = sentence_trace(TraceKey.of(settings).with_heads(1))
    difference = single.trace.output - data.trace.output
    st.markdown(t("mh_compare_text", h=h, diff=f"{float(np.max(np.abs(difference))):.4f}"))
    left, right = st.columns([1, 2])
    weights = _A_args(data, settings.decimals)
    with left:
        A = heatmap(single.trace.A[0], tokens, tokens, title=t("mh_one_head", d=d_model), **weights)
        plot(A, "mh_single")
    with right:
        common = _common(settings.decimals)
        title = t("mh_diff_title", h=h)
        plot(heatmap(difference, tokens, dims(d_model), title=title, **common), "mh_diff")
