"""The walkthrough's steps: for each, the formula, the shapes with numbers, figures and the row."""

import numpy as np
import streamlit as st
import streamlit.components.v1 as components

import core
from ui import arithmetic, code_lines
from ui.escape import markdown_text
from ui.figures import COLOURS, MAX_SIDE, MAX_TEXT_CELLS, A_heatmap, heatmap
from ui.i18n import labeller, t
from ui.layout import plot
from ui.numbers import sub
from ui.settings import coded_choice, keep_in_url, url_choice

STEPS = ("tokens", "pe", "x_pe", "qkv", "scores", "scaled", "mask", "softmax", "av", "heads")
HEAD_STEPS = ("qkv", "scores", "scaled", "mask", "softmax", "av")  # show one head at a time
FOCUS_STEPS = ("qkv", "scores", "scaled", "mask", "softmax", "av", "heads")  # highlight a row
ROW_STEPS = ("scores", "scaled", "mask", "softmax", "av")  # the focus row worked out
FORMULAS = {
    "tokens": r"X = \begin{bmatrix} x_0 \\ x_1 \\ \vdots \\ x_{n-1} \end{bmatrix}",
    "pe": r"PE_{pos,2i} = \sin\!\left(\frac{pos}{10000^{2i/d_{model}}}\right),\quad "
    r"PE_{pos,2i+1} = \cos\!\left(\frac{pos}{10000^{2i/d_{model}}}\right)",
    "x_pe": r"X \leftarrow X + PE",
    "qkv": r"Q = X W_Q,\quad K = X W_K,\quad V = X W_V",
    "scores": r"S = Q K^\top,\qquad S_{ij} = q_i \cdot k_j",
    "scaled": r"S' = \frac{S}{\sqrt{d_k}}",
    "mask": r"S'_{ij} \leftarrow \begin{cases} S'_{ij} & M_{ij} = 1 \\ -\infty & M_{ij} = 0 "
    r"\end{cases}",
    "softmax": r"A_{ij} = \frac{e^{S'_{ij}}}{\sum_{j'} e^{S'_{ij'}}}",
    "av": r"O_h = A V,\qquad o_i = \sum_j a_{ij} v_j",
    "heads": r"\text{MultiHead}(X) = \text{Concat}(O_0, \dots, O_{h-1})\, W_O",
}


def backend_line(name: str) -> str:
    """Which library computed these numbers; says so when a GPU sat idle because n was small."""
    line = t("backend_note", backend=t(f"backend_{name}"))
    if name == "numpy" and core.active_backend().name == "cupy":
        line += f" · {t('backend_short', limit=core.GPU_FROM_N)}"
    return line


def shape(rows, cols) -> str:
    return f"[{rows} × {cols}]"


def shapes_line(step: str, data, head: int) -> str:
    """The step's shapes in symbols and numbers, e.g. 'Q [5 × 4] × Kᵀ [4 × 5] → S [5 × 5]'."""
    n, d, d_k, d_v = data.n, data.E.shape[1], data.d_k, data.d_v
    h = data.W.W_O.shape[0] // d_v
    lines = {
        "tokens": f"X [n × d_model] = {shape(n, d)}",
        "pe": f"PE [n × d_model] = {shape(n, d)}",
        "x_pe": f"{shape(n, d)} + {shape(n, d)} → {shape(n, d)}",
        "qkv": f"X {shape(n, d)} × W_Q {shape(d, d_k)} → Q {shape(n, d_k)};   "
        f"× W_K {shape(d, d_k)} → K {shape(n, d_k)};   × W_V {shape(d, d_v)} → V {shape(n, d_v)}",
        "scores": f"Q {shape(n, d_k)} × Kᵀ {shape(d_k, n)} → S {shape(n, n)}",
        "scaled": f"S {shape(n, n)} ÷ √{d_k} (= {np.sqrt(d_k):.4g}) → {shape(n, n)}",
        "mask": f"{shape(n, n)} → {shape(n, n)}",
        "softmax": f"softmax {shape(n, n)} → A {shape(n, n)}",
        "av": f"A {shape(n, n)} × V {shape(n, d_v)} → O_{head} {shape(n, d_v)}",
        "heads": f"concat({h} × {shape(n, d_v)}) → {shape(n, h * d_v)};   "
        f"× W_O {shape(h * d_v, d)} → {shape(n, d)}",
    }
    return lines[step]


def step_navigation(visible_steps, projector: bool = False) -> str:
    """Pipeline strip (one click to any step) plus Previous / Next; returns the current step.
    In projector mode one compact band instead: Previous, the step with its formula, Next."""

    def move(offset: int):
        index = visible_steps.index(st.session_state["step"]) + offset
        st.session_state["step"] = visible_steps[max(0, min(len(visible_steps) - 1, index))]

    if projector:
        return _projector_band(visible_steps, move)

    step = url_choice(
        st.segmented_control,
        t("pipeline"),
        visible_steps,
        "step",
        visible_steps[0],
        format_func=labeller("step"),
    )
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


def _projector_band(visible_steps, move) -> str:
    step = st.session_state.get("step")  # a plain value here: no pipeline widget is drawn
    if step not in visible_steps:
        step = coded_choice("step", visible_steps, visible_steps[0])
    st.session_state["step"] = step
    keep_in_url("step", step, visible_steps[0])
    index = visible_steps.index(step)
    left, middle, right = st.columns([1, 10, 1], vertical_alignment="center")
    left.button("◀", on_click=move, args=(-1,), disabled=index == 0, key="prev_step")
    middle.markdown(f"**{t(f'title_{step}')}** &nbsp; ${FORMULAS[step]}$")
    last = len(visible_steps) - 1
    right.button("▶", on_click=move, args=(1,), disabled=index == last, key="next_step")
    arrow_keys()
    return step


def arrow_keys() -> None:
    """← and → press Previous and Next (a script in this page's own component; nothing fetched;
    ignored while typing in a box)."""
    components.html(ARROW_KEYS_SCRIPT, height=0)


ARROW_KEYS_SCRIPT = """<script>
const doc = window.parent.document;
if (!doc.selfAttentionArrows) {
  doc.selfAttentionArrows = true;
  doc.addEventListener("keydown", (event) => {
    const typing = ["INPUT", "TEXTAREA", "SELECT"].includes(doc.activeElement?.tagName);
    if (typing || event.altKey || event.ctrlKey || event.metaKey) return;
    const key = {ArrowLeft: ".st-key-prev_step button", ArrowRight: ".st-key-next_step button"};
    const button = key[event.key] && doc.querySelector(key[event.key]);
    if (button && !button.disabled) { event.preventDefault(); button.click(); }
  });
}
</script>"""


def row_controls(step: str, data, n_heads: int) -> tuple[int, int]:
    """Head and focus-token pickers, shown on the steps where they change something."""
    head, focus = 0, data.n - 1
    left, right = st.columns(2)
    if step in HEAD_STEPS:
        head = (
            left.segmented_control(t("head"), range(n_heads), key="head", default=0, required=True)
            or 0
        )
    if step in FOCUS_STEPS:
        labels = [f"{i} · {token}" for i, token in enumerate(data.tokens)]
        following = st.session_state.pop("_room_focus", None)  # the teacher's focus row
        if following is not None and 0 <= following < data.n:
            st.session_state["focus"] = labels[following]
        chosen = right.selectbox(t("focus"), labels, index=data.n - 1, key="focus")
        focus = labels.index(chosen) if chosen in labels else data.n - 1
    return min(head, n_heads - 1), focus


WIDE_STEPS = ("qkv", "heads")  # several charts side by side: the projector's full width


def render(step: str, data, settings, head: int, focus: int) -> None:
    """Formula, shapes, explanation, figures and (for the attention steps) the focus row. In
    projector mode the band above holds the title and formula; the explanation, shapes and code
    sit beside the chart (below the charts of the wide steps)."""
    if not settings.presentation:
        st.subheader(t(f"title_{step}"))
        st.latex(FORMULAS[step])
        _notes(step, data, settings, head)
        _figures(step, data, settings, head, focus)
    elif step in WIDE_STEPS:
        _figures(step, data, settings, head, focus)
        _notes(step, data, settings, head)
    else:
        chart, notes = st.columns([3, 2])
        with chart:
            _figures(step, data, settings, head, focus)
        with notes:
            _notes(step, data, settings, head)
    if step in ROW_STEPS:
        focus_row(step, data, head, focus, settings.decimals)


def _notes(step: str, data, settings, head: int) -> None:
    """The code, the shapes with their numbers, and what the step means."""
    code_lines.show(code_lines.STEP_SYMBOLS.get(step, ()))
    st.markdown(f"**{t('shape')}:** `{shapes_line(step, data, head)}`")
    explain_key = {"mask": f"explain_mask_{settings.mask}"}.get(step, f"explain_{step}")
    if step in ("pe", "x_pe") and data.PE is None:
        explain_key = "explain_pe_off"
    st.info(t(explain_key))
    if data.n > MAX_SIDE:
        side = -(-data.n // -(-data.n // MAX_SIDE))  # cells per side after block averaging
        st.caption(t("downsampled", n=data.n, m=side))
    elif data.n > MAX_TEXT_CELLS:
        st.caption(t("too_big_for_text", n=data.n))


def _figures(step: str, data, settings, head: int, focus: int) -> None:
    tokens, tr = list(data.tokens), data.trace
    dims = [str(c) for c in range(data.E.shape[1])]
    by_token = {
        "decimals": settings.decimals,
        "row_title": t("axis_token"),
        "col_title": t("axis_dim"),
    }
    by_pair = {
        "decimals": settings.decimals,
        "row_title": t("axis_query"),
        "col_title": t("axis_key"),
        "focus_row": focus,
        "square": True,
    }
    forbidden = None if data.mask is None else ~data.mask

    def columns_of(M):
        return [str(c) for c in range(M.shape[1])]

    if step == "tokens":
        title = t("chart_E") if data.PE is not None else "X"
        plot(heatmap(data.E, tokens, dims, title=title, **by_token), "fig_x")
    elif step == "pe" and data.PE is not None:
        plot(heatmap(data.PE, tokens, dims, title="PE", **by_token), "fig_pe")
    elif step == "x_pe":
        title = "X = E + PE" if data.PE is not None else "X"
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
                        title=f"{name} ({t('head')} {head})",
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
                            title=f"{name} ({t('head')} {head})",
                            decimals=settings.decimals,
                        ),
                        f"fig_{name}",
                    )
    elif step in ("scores", "scaled", "mask"):
        field = {"scores": "S", "scaled": "S_scaled", "mask": "S_masked"}[step]
        plot(
            heatmap(
                getattr(tr, field)[head],
                tokens,
                tokens,
                title=t(f"chart_{step}"),
                forbidden=forbidden if step == "mask" else None,
                **by_pair,
            ),
            f"fig_{step}",
        )
        if step == "mask" and forbidden is not None:
            st.caption(t("masked_legend"))
    elif step == "softmax":
        A = A_heatmap(tr.A[head], tokens, title=t("chart_softmax"), forbidden=forbidden, **by_pair)
        plot(A, "fig_softmax")
        st.caption(t("row_sum_note"))
    elif step == "av":
        O = tr.O[head]
        plot(
            heatmap(
                O,
                tokens,
                columns_of(O),
                title=f"O_{head} = A V",
                title_colour=COLOURS["O"],
                focus_row=focus,
                **by_token,
            ),
            "fig_av",
        )
    elif step == "heads":
        left, right = st.columns(2)
        with left:
            concat_columns = [f"h{c // data.d_v}·{c % data.d_v}" for c in range(tr.concat.shape[1])]
            plot(
                heatmap(
                    tr.concat,
                    tokens,
                    concat_columns,
                    title=t("chart_concat"),
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


def focus_row(step: str, data, head: int, i: int, decimals: int) -> None:
    """The focus token's row with its real numbers."""
    tr = data.trace
    A_row = tr.A[head, i]
    keys = arithmetic.keys_to_show(A_row)
    allowed_row = np.isfinite(tr.S_masked[head, i])
    title = t("focus_title", i=i, token=markdown_text(data.tokens[i]))
    with st.expander(title, expanded=data.n <= 12):
        if step in ("scores", "scaled"):
            st.markdown(f"**{t('focus_dot', i=i, si=sub(i))}**")
            lines = arithmetic.dot_product_lines(
                tr.Q[head, i], tr.K[head], keys, i, data.d_k, allowed_row, decimals
            )
        elif step == "mask":
            st.markdown(f"**{t('focus_mask', i=i)}**")
            lines = arithmetic.mask_lines(tr.S_scaled[head, i], allowed_row, keys, i, decimals)
        elif step == "softmax":
            st.markdown(f"**{t('focus_softmax', i=i)}**")
            lines = arithmetic.softmax_lines(tr.S_masked[head, i], A_row, keys, decimals)
        else:
            st.markdown(f"**{t('focus_output', i=i, si=sub(i))}**")
            lines = arithmetic.weighted_sum_lines(
                A_row, tr.V[head], keys, i, tr.O[head, i], decimals
            )
        if len(keys) < data.n:
            lines.append(t("focus_more", k=data.n - len(keys)))
        st.markdown("\n".join(f"- {line}" for line in lines))
