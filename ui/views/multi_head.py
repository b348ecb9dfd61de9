"""The multi-head page: X W_Q split into heads, every head's A and O, the concat and W_O, and one
wide head against several with the same weights."""

import numpy as np
import streamlit as st

from ui.figures.axes import token_axes
from ui.figures.heatmaps import heatmap
from ui.figures.place import head_bands, head_grid, plot
from ui.kit import reference_lines as code_lines
from ui.kit.i18n import t
from ui.kit.number_text import indices, num, shown_index
from ui.work.traces import TraceKey, sentence_trace


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
    st.subheader(t("multi_head.split_title"))
    st.markdown(t("multi_head.split_text"))
    code_lines.show(("Q",))
    st.code(
        f"X [{n} × {d_model}] · W_Q [{d_model} × {h}·{d_k}] → [{n} × {h * d_k}]"
        f" → reshape [{n} × {h} × {d_k}] → transpose(0, 1) → [{h} × {n} × {d_k}]",
        language=None,
    )
    Q_all = data.trace.X @ data.W.W_Q  # [n, h·d_k]: computed here only to draw the split
    common, base = token_axes(settings.decimals), settings.base
    figure = heatmap(
        Q_all,
        tokens,
        indices(h * d_k, base),
        title=t("multi_head.all_columns"),
        column_bands=head_bands(h, d_k, base),
        **common,
    )
    plot(figure, "mh_q_all")
    title = f"Q{{sh}}  [{n} × {d_k}]"
    head_grid(data.trace.Q, tokens, indices(d_k, base), title, "mh_q", base=base, **common)


def every_head(data, settings) -> None:
    """Each head's A, each head's O, then the concat and the output."""
    tr, tokens, n, h, d_v = data.trace, list(data.tokens), data.n, settings.n_heads, data.d_v
    common, base = token_axes(settings.decimals), settings.base
    st.subheader(t("multi_head.weights_title"))
    st.caption(t("multi_head.weights_text"))
    weights = _A_args(data, settings.decimals)
    head_grid(tr.A, tokens, tokens, f"A{{sh}}  [{n} × {n}]", "mh_a", base=base, **weights)
    st.subheader(t("multi_head.outputs_title"))
    code_lines.show(("concat", "output"))
    title = "O{sh} = A{sh} V{sh}"
    head_grid(tr.O, tokens, indices(d_v, base), title, "mh_o", base=base, **common)
    bands = head_bands(h, d_v, base)
    concat = heatmap(
        tr.concat,
        tokens,
        indices(h * d_v, base),
        title=t("multi_head.concat", first=shown_index(0, base)),
        column_bands=bands,
        **common,
    )
    plot(concat, "mh_concat")
    columns = indices(settings.d_model, base)
    output = heatmap(tr.output, tokens, columns, title=t("multi_head.output"), **common)
    plot(output, "mh_output")


def one_wide_head(data, settings) -> None:
    """The same weights as one head of width d_model: its A and how the output differs."""
    h, tokens, d_model = settings.n_heads, list(data.tokens), settings.d_model
    st.subheader(t("multi_head.compare_title"))
    if h == 1:
        st.info(t("multi_head.single_note"))
        return
    single = sentence_trace(TraceKey.of(settings).with_heads(1))
    difference = single.trace.output - data.trace.output
    diff = num(float(np.max(np.abs(difference))), settings.decimals)
    st.markdown(t("multi_head.compare_text", count=h, h=h, diff=diff))
    left, right = st.columns([1, 2])
    weights = _A_args(data, settings.decimals)
    with left:
        A = heatmap(
            single.trace.A[0], tokens, tokens, title=t("multi_head.one_head", d=d_model), **weights
        )
        plot(A, "mh_single")
    with right:
        common = token_axes(settings.decimals)
        title = t("multi_head.diff_title", h=h)
        columns = indices(d_model, settings.base)
        plot(heatmap(difference, tokens, columns, title=title, **common), "mh_diff")
