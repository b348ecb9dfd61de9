"""The walkthrough's steps: for each, the formula, the shapes with numbers, figures and the row."""

import numpy as np
import streamlit as st

from ui import arithmetic
from ui.escape import markdown_text
from ui.figures import COLOURS, heatmap
from ui.i18n import labeller, t
from ui.settings import coded_choice, keep_in_url

STEPS = ("tokens", "pe", "x_pe", "qkv", "scores", "scaled", "mask", "softmax", "av", "heads")
FORMULAS = {
    "tokens": r"X = \begin{bmatrix} x_0 \\ x_1 \\ \vdots \\ x_{n-1} \end{bmatrix}",
    "pe": r"PE_{pos,2i} = \sin\!\left(\frac{pos}{10000^{2i/d_{model}}}\right),\quad "
    r"PE_{pos,2i+1} = \cos\!\left(\frac{pos}{10000^{2i/d_{model}}}\right)",
    "x_pe": r"X \leftarrow X + PE",
    "qkv": r"Q = X W_Q,\quad K = X W_K,\quad V = X W_V",
    "scores": r"S = Q K^\top,\qquad S_{ij} = q_i \cdot k_j",
    "scaled": r"S' = \frac{S}{\sqrt{d_k}}",
    "mask": r"S'_{ij} \leftarrow -\infty \ \text{where the mask forbids } (i, j)",
    "softmax": r"A_{ij} = \frac{e^{S'_{ij}}}{\sum_{j'} e^{S'_{ij'}}}",
    "av": r"O_h = A V,\qquad o_i = \sum_j a_{ij} v_j",
    "heads": r"\text{MultiHead}(X) = \text{Concat}(O_0, \dots, O_{h-1})\, W_O",
}


def shape(rows, cols) -> str:
    return f"[{rows} × {cols}]"


def shapes_line(step: str, data, head: int) -> str:
    """The step's shapes in symbols and numbers, e.g. 'Q [n × d_k] × Kᵀ [d_k × n] → S [n × n]'."""
    n, d, d_k, d_v, h = (
        data.n,
        data.E.shape[1],
        data.d_k,
        data.d_v,
        data.weights.W_O.shape[0] // data.d_v,
    )
    lines = {
        "tokens": f"X [n × d_model] = {shape(n, d)}",
        "pe": f"PE [n × d_model] = {shape(n, d)}",
        "x_pe": f"{shape(n, d)} + {shape(n, d)} → {shape(n, d)}",
        "qkv": f"X {shape(n, d)} × W_Q {shape(d, d_k)} → Q {shape(n, d_k)};   "
        f"× W_K {shape(d, d_k)} → K {shape(n, d_k)};   × W_V {shape(d, d_v)} → V {shape(n, d_v)}",
        "scores": f"Q {shape(n, d_k)} × Kᵀ {shape(d_k, n)} → S {shape(n, n)}",
        "scaled": f"S {shape(n, n)} ÷ √{d_k} = {np.sqrt(d_k):.3g} → {shape(n, n)}",
        "mask": f"{shape(n, n)} → {shape(n, n)}",
        "softmax": f"softmax {shape(n, n)} → A {shape(n, n)}",
        "av": f"A {shape(n, n)} × V {shape(n, d_v)} → O_{head} {shape(n, d_v)}",
        "heads": f"concat({h} × {shape(n, d_v)}) → {shape(n, h * d_v)};   "
        f"× W_O {shape(h * d_v, d)} → {shape(n, d)}",
    }
    return lines[step]


def step_navigation(visible_steps) -> str:
    """Pipeline strip (one click to any step) plus Previous / Next; returns the current step."""

    def move(offset: int):
        index = visible_steps.index(st.session_state["step"]) + offset
        st.session_state["step"] = visible_steps[max(0, min(len(visible_steps) - 1, index))]

    step = (
        st.segmented_control(
            t("pipeline"),
            visible_steps,
            key="step",
            format_func=labeller("step"),
            required=True,
            default=coded_choice("step", visible_steps, visible_steps[0]),
        )
        or visible_steps[0]
    )
    keep_in_url("step", step, visible_steps[0])
    index = visible_steps.index(step)
    left, middle, right = st.columns([1, 3, 1], vertical_alignment="center")
    left.button(
        t("previous"),
        on_click=move,
        args=(-1,),
        disabled=index == 0,
        width="stretch",
        key="prev_step",
    )
    middle.caption(t("step_of", i=index + 1, n=len(visible_steps)))
    right.button(
        t("next"),
        on_click=move,
        args=(1,),
        disabled=index == len(visible_steps) - 1,
        width="stretch",
        key="next_step",
    )
    return step


def _labels(data):
    return list(data.tokens), [str(c) for c in range(data.E.shape[1])]


def _plot(fig, key: str):
    st.plotly_chart(fig, width="stretch", key=key, config={"displaylogo": False})


def render(step: str, data, settings, head: int, focus: int) -> None:
    """Formula, shapes, explanation, figures and (for the attention steps) the focus row."""
    st.subheader(t(f"title_{step}"))
    st.latex(FORMULAS[step])
    st.markdown(f"**{t('shape')}:** `{shapes_line(step, data, head)}`")
    explain_key = {"mask": f"explain_mask_{settings.mask}"}.get(step, f"explain_{step}")
    if step in ("pe", "x_pe") and data.PE is None:
        explain_key = "explain_pe_off"
    st.info(t(explain_key))

    tokens, dims = _labels(data)
    tr, dec = data.trace, settings.decimals
    common = {"decimals": dec, "downsample_note": ""}
    square = {
        "row_title": t("axis_query"),
        "col_title": t("axis_key"),
        "focus_row": focus,
        **common,
    }
    if data.n > 24:
        st.caption(t("too_big_for_text", n=data.n))
    allowed = np.ones((data.n, data.n), bool) if data.mask is None else data.mask
    forbidden = ~allowed

    def matrix(M, title, key):
        _plot(
            heatmap(
                M,
                tokens,
                dims if M.shape[1] == len(dims) else [str(c) for c in range(M.shape[1])],
                title=title,
                row_title=t("axis_token"),
                col_title=t("axis_dim"),
                **common,
            ),
            key,
        )

    if step == "tokens":
        matrix(data.E, "E (token vectors)" if data.PE is not None else "X", "fig_x")
    elif step == "pe":
        if data.PE is not None:
            matrix(data.PE, "PE", "fig_pe")
    elif step == "x_pe":
        matrix(tr.X, "X = E + PE" if data.PE is not None else "X", "fig_xpe")
    elif step == "qkv":
        columns = st.columns(3)
        for column, name in zip(columns, ("Q", "K", "V")):
            with column:
                st.markdown(
                    f"<span style='color:{COLOURS[name]};font-weight:700'>{name}</span> "
                    f"({t('head')} {head})",
                    unsafe_allow_html=True,
                )
                _plot(
                    heatmap(
                        getattr(tr, name)[head],
                        tokens,
                        None,
                        title=f"{name}_{head}",
                        row_title=t("axis_token"),
                        focus_row=focus,
                        **common,
                    ),
                    f"fig_{name}",
                )
        with st.expander(t("show_weights")):
            for name, M in (
                ("W_Q", data.weights.W_Q),
                ("W_K", data.weights.W_K),
                ("W_V", data.weights.W_V),
            ):
                width = data.d_v if name == "W_V" else data.d_k
                block = M[:, head * width : (head + 1) * width]
                _plot(
                    heatmap(block, dims, None, title=f"{name} ({t('head')} {head})", **common),
                    f"fig_{name}",
                )
    elif step in ("scores", "scaled", "mask"):
        field = {"scores": "scores", "scaled": "scaled", "mask": "masked"}[step]
        title = {"scores": "S = QKᵀ", "scaled": "S / √d_k", "mask": "masked S"}[step]
        _plot(
            heatmap(
                getattr(tr, field)[head],
                tokens,
                tokens,
                title=title,
                forbidden=forbidden if step == "mask" else None,
                **square,
            ),
            f"fig_{step}",
        )
    elif step == "softmax":
        A = tr.weights[head]
        notes = [f"Σ={arithmetic.num(s, dec)}" for s in A.sum(axis=1)]
        _plot(
            heatmap(
                A,
                tokens,
                tokens,
                title="A = softmax(S / √d_k)",
                scale="weights",
                forbidden=forbidden,
                forbidden_text="0",
                row_notes=notes,
                **square,
            ),
            "fig_softmax",
        )
    elif step == "av":
        _plot(
            heatmap(
                tr.head_outputs[head],
                tokens,
                None,
                title=f"O_{head} = A V",
                row_title=t("axis_token"),
                focus_row=focus,
                **common,
            ),
            "fig_av",
        )
    elif step == "heads":
        left, right = st.columns(2)
        with left:
            _plot(
                heatmap(
                    tr.concat,
                    tokens,
                    None,
                    title="Concat(O_0 … O_h-1)",
                    row_title=t("axis_token"),
                    focus_row=focus,
                    **common,
                ),
                "fig_concat",
            )
        with right:
            _plot(
                heatmap(
                    tr.output,
                    tokens,
                    dims,
                    title="output = Concat · W_O",
                    row_title=t("axis_token"),
                    focus_row=focus,
                    **common,
                ),
                "fig_output",
            )
        with st.expander(t("show_weights")):
            _plot(heatmap(data.weights.W_O, None, dims, title="W_O", **common), "fig_W_O")

    if step in ("scores", "scaled", "mask", "softmax", "av"):
        focus_row(step, data, head, focus, dec)


def focus_row(step: str, data, head: int, i: int, decimals: int) -> None:
    """The focus token's row with its real numbers."""
    tr = data.trace
    A_row = tr.weights[head, i]
    keys = arithmetic.keys_to_show(A_row)
    title = t("focus_title", i=i, token=markdown_text(data.tokens[i]))
    allowed_row = np.isfinite(tr.masked[head, i])
    with st.expander(title, expanded=data.n <= 12):
        if step in ("scores", "scaled", "mask"):
            st.markdown(f"**{t('focus_dot', i=i, si=arithmetic.sub(i))}**")
            lines = arithmetic.dot_product_lines(
                tr.Q[head, i], tr.K[head], keys, i, data.d_k, allowed_row, decimals
            )
        elif step == "softmax":
            st.markdown(f"**{t('focus_softmax', i=i)}**")
            lines = arithmetic.softmax_lines(tr.masked[head, i], A_row, keys, decimals)
        else:
            st.markdown(f"**{t('focus_output', i=i, si=arithmetic.sub(i))}**")
            lines = arithmetic.weighted_sum_lines(
                A_row, tr.V[head], keys, i, tr.head_outputs[head, i], decimals
            )
        if len(keys) < data.n:
            lines.append(t("focus_more", k=data.n - len(keys)))
        st.markdown("\n".join(f"- {line}" for line in lines))
