"""The walkthrough's steps: for each, the formula, the shapes with numbers, figures and the row."""

import numpy as np
import streamlit as st
import streamlit.components.v1 as components

import core
from ui import (
    block_step,
    cell_pick,
    code_lines,
    predict,
    provenance,
    room_student,
    step_figures,
    worked_row,
)
from ui.figures import MAX_SIDE, MAX_TEXT_CELLS
from ui.i18n import labeller, t
from ui.numbers import index, row_label, sub
from ui.room import from_room_view
from ui.settings import base, coded_choice, keep_in_url, url_choice

STEPS = (
    "tokens", "pe", "x_pe", "qkv", "scores", "scaled", "mask", "softmax", "av", "heads", "block",
)  # fmt: skip
HEAD_STEPS = ("qkv", "scores", "scaled", "mask", "softmax", "av")  # show one head at a time
FOCUS_STEPS = ("qkv", "scores", "scaled", "mask", "softmax", "av", "heads", "block")
ROW_STEPS = ("scores", "scaled", "mask", "softmax", "av", "block")  # the focus row worked out
FORMULAS = {
    "tokens": r"E = \begin{bmatrix} e_0 \\ e_1 \\ \vdots \\ e_{n-1} \end{bmatrix}",
    "pe": r"PE_{pos,2i} = \sin\!\left(\frac{pos}{10000^{2i/d_{model}}}\right),\quad "
    r"PE_{pos,2i+1} = \cos\!\left(\frac{pos}{10000^{2i/d_{model}}}\right)",
    "x_pe": r"X = E + PE",
    "qkv": r"Q = X W_Q,\quad K = X W_K,\quad V = X W_V",
    "scores": r"S = Q K^\top,\qquad S_{ij} = q_i \cdot k_j",
    "scaled": r"S' = \frac{S}{\sqrt{d_k}}",
    "mask": r"S'_{ij} \leftarrow \begin{cases} S'_{ij} & M_{ij} = 1 \\ -\infty & M_{ij} = 0 "
    r"\end{cases}",
    "softmax": r"A_{ij} = \frac{e^{S'_{ij}}}{\sum_{j'} e^{S'_{ij'}}}",
    "av": r"O_h = A V,\qquad o_i = \sum_j a_{ij} v_j",
    "heads": r"\text{MultiHead}(X) = \text{Concat}(O_0, \dots, O_{h-1})\, W_O",
    "block": block_step.FORMULA,
}


def backend_line(name: str) -> str:
    """Which library computed these numbers; says so when a GPU sat idle because n was small."""
    line = t("backend_note", backend=t(f"backend_{name}"))
    if name == "numpy" and core.active_backend().name == "cupy":
        line += f" · {t('backend_short', limit=core.GPU_FROM_N)}"
    return line


def formula(step: str, base: int) -> str:
    """The step's formula in LaTeX, its indices counted from ``base``."""
    if base == 1 and step == "tokens":
        return r"E = \begin{bmatrix} e_1 \\ e_2 \\ \vdots \\ e_n \end{bmatrix}"
    if base == 1 and step == "heads":
        return r"\text{MultiHead}(X) = \text{Concat}(O_1, \dots, O_h)\, W_O"
    return FORMULAS[step]


def shape(rows, cols) -> str:
    return f"[{rows} × {cols}]"


def shapes_line(step: str, data, head: int, base: int = 0) -> str:
    """The step's shapes in symbols and numbers, e.g. 'Q [5 × 4] × Kᵀ [4 × 5] → S [5 × 5]'."""
    if step == "block":
        return block_step.shapes(data)
    n, d, d_k, d_v = data.n, data.E.shape[1], data.d_k, data.d_v
    h = data.W.W_O.shape[0] // d_v
    lines = {
        "tokens": f"E [n × d_model] = {shape(n, d)}",
        "pe": f"PE [n × d_model] = {shape(n, d)}",
        "x_pe": f"E {shape(n, d)} + PE {shape(n, d)} → X {shape(n, d)}",
        "qkv": f"X {shape(n, d)} × W_Q {shape(d, d_k)} → Q {shape(n, d_k)};   "
        f"× W_K {shape(d, d_k)} → K {shape(n, d_k)};   × W_V {shape(d, d_v)} → V {shape(n, d_v)}",
        "scores": f"Q {shape(n, d_k)} × Kᵀ {shape(d_k, n)} → S {shape(n, n)}",
        "scaled": f"S {shape(n, n)} ÷ √{d_k} (= {np.sqrt(d_k):.4g}) → {shape(n, n)}",
        "mask": f"{shape(n, n)} → {shape(n, n)}",
        "softmax": f"softmax {shape(n, n)} → A {shape(n, n)}",
        "av": f"A {shape(n, n)} × V {shape(n, d_v)} → O{sub(head + base)} {shape(n, d_v)}",
        "heads": f"concat({h} × {shape(n, d_v)}) → {shape(n, h * d_v)};   "
        f"× W_O {shape(h * d_v, d)} → {shape(n, d)}",
    }
    return lines[step]


def step_navigation(visible_steps, projector: bool = False) -> str:
    """Pipeline strip (one click to any step) plus Previous / Next; returns the current step.
    In projector mode one compact band instead: Previous, the step with its formula, Next."""

    def move(offset: int):
        before = st.session_state["step"]
        if from_room_view() and st.session_state.get("step") not in visible_steps:
            st.session_state["step"] = before  # a teacher's press starts from the room's step
        index = visible_steps.index(st.session_state["step"]) + offset
        st.session_state["step"] = visible_steps[max(0, min(len(visible_steps) - 1, index))]

    locked = room_student.locked()  # the teacher has everyone following
    if projector:
        return _projector_band(visible_steps, move, locked)

    step = url_choice(
        st.segmented_control,
        t("pipeline"),
        visible_steps,
        "step",
        visible_steps[0],
        format_func=labeller("step"),
        disabled=locked,
    )
    index = visible_steps.index(step)
    band = st.container(
        horizontal=True,
        vertical_alignment="center",
        horizontal_alignment="distribute",
        key="step_band",
    )  # fmt: skip  (a horizontal container stays one row on a phone; columns would stack)
    band.button(
        t("previous"), on_click=move, args=(-1,), disabled=locked or index == 0, key="prev_step"
    )
    band.caption(t("step_of", i=index + 1, n=len(visible_steps)), width="content")
    band.button(
        t("next"),
        on_click=move,
        args=(1,),
        disabled=locked or index == len(visible_steps) - 1,
        key="next_step",
    )
    return step


def _projector_band(visible_steps, move, locked: bool = False) -> str:
    step = st.session_state.get("step")  # a plain value here: no pipeline widget is drawn
    if step not in visible_steps:
        step = coded_choice("step", visible_steps, visible_steps[0])
    st.session_state["step"] = step
    keep_in_url("step", step, visible_steps[0])
    index = visible_steps.index(step)
    left, middle, right = st.columns([1, 10, 1], vertical_alignment="center")
    left.button("◀", on_click=move, args=(-1,), disabled=locked or index == 0, key="prev_step")
    middle.markdown(f"**{t(f'title_{step}')}** &nbsp; ${formula(step, base())}$")
    last = len(visible_steps) - 1
    right.button("▶", on_click=move, args=(1,), disabled=locked or index == last, key="next_step")
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
    // typing in a box, or a control that uses the arrows itself (a slider, a list, a radio);
    // a button or a switch just pressed keeps its focus, and ← → still step
    const el = doc.activeElement;
    const textual = el?.tagName === "TEXTAREA" || el?.tagName === "SELECT" || el?.isContentEditable
      || (el?.tagName === "INPUT" && !["checkbox", "button", "submit"].includes(el.type));
    const own = "[role=slider],[role=listbox],[role=combobox],[role=radiogroup]";
    const arrowsOwn = el?.closest?.(own);
    const typing = textual || arrowsOwn;
    if (typing || event.altKey || event.ctrlKey || event.metaKey) return;
    const key = {ArrowLeft: ".st-key-prev_step button", ArrowRight: ".st-key-next_step button"};
    const button = key[event.key] && doc.querySelector(key[event.key]);
    if (button && !button.disabled) { event.preventDefault(); button.click(); }
  });
}
</script>"""


def default_focus(n: int, causal: bool) -> int:
    """The last token; with the causal mask a middle row instead, which has keys masked after it
    (the last row is the one row where the mask hides nothing)."""
    return (n - 1) // 2 if causal else n - 1


def _url_index(name: str, count: int, default: int) -> int:
    try:
        value = int(st.query_params.get(name, default))
    except ValueError:
        return default
    return value if 0 <= value < count else default


def _chose_focus() -> None:
    st.session_state["_focus_chosen"] = True


def row_controls(step: str, data, settings) -> tuple[int, int]:
    """Head and focus-row pickers, shown on the steps where they change something. Both live in
    the URL (head=, focus=: counted from 0, whatever the numbering shown). A clicked cell or the
    teacher's view sets the focus row too."""
    n, base, state = data.n, settings.base, st.session_state
    n_heads = settings.n_heads
    head, focus = 0, default_focus(n, settings.mask == "causal")
    band = st.container(horizontal=True, vertical_alignment="bottom", key="row_band")
    left, right = band, band
    if step in HEAD_STEPS:
        if not isinstance(state.get("head"), int) or state["head"] >= n_heads:
            state["head"] = _url_index("head", n_heads, 0)
        head = left.segmented_control(
            t("head"), range(n_heads), key="head", required=True,
            format_func=lambda h: index(h, base),
        )  # fmt: skip
        head = 0 if head is None else head
        keep_in_url("head", str(head), "0")
    if step in FOCUS_STEPS:
        _settle_focus(step, n, focus)
        focus = right.selectbox(
            t("focus"), range(n), key="focus", on_change=_chose_focus, width=260,
            format_func=lambda i: row_label(i, data.tokens[i], base),
        )  # fmt: skip
        keep_in_url("focus", str(focus), str(default_focus(n, settings.mask == "causal")))
    return min(head, n_heads - 1), focus


def _settle_focus(step: str, n: int, default: int) -> None:
    """The focus row before its picker is drawn: the teacher's, a newly clicked cell's, the
    URL's, or the default (which follows the mask until the learner picks a row)."""
    state = st.session_state
    following = state.pop("_room_focus", None)
    clicked = cell_pick.picked(state.get(f"fig_{step}"))
    if following is not None and 0 <= following < n:
        state["focus"], state["_focus_chosen"] = following, True
    elif clicked is not None and clicked != state.get("_last_click") and clicked[0] < n:
        state["focus"], state["_focus_chosen"] = clicked[0], True
        state["_cell"] = (step, *clicked)  # kept: the chart's own selection resets as it redraws
    elif not isinstance(state.get("focus"), int) or state["focus"] >= n:
        state["focus"] = _url_index("focus", n, default)
        state["_focus_chosen"] = "focus" in st.query_params
    elif not state.get("_focus_chosen"):
        state["focus"] = default
    state["_last_click"] = clicked


WIDE_STEPS = ("qkv", "heads", "block")  # several charts side by side: the projector's full width


def render(step: str, data, settings, head: int, focus: int) -> None:
    """Formula, figures, shapes, explanation and (for the attention steps) the focus row. In
    projector mode the band above holds the title and formula; the explanation, shapes and code
    sit beside the chart (below the charts of the wide steps). With predict first, the step's
    question comes before its result."""
    if not settings.presentation:
        st.subheader(t(f"title_{step}"))
        st.latex(formula(step, settings.base))
    if room_student.result_hidden():  # the class is answering the teacher's question
        st.info(t("room_question_hides"), icon=":material/quiz:")
        return
    if st.session_state.get("predict") and not predict.gate(step, data, head, focus, settings.base):
        code_lines.show(code_lines.STEP_SYMBOLS.get(step, ()))  # the code, not what it gives
        return
    if not settings.presentation:
        step_figures.figures(step, data, settings, head, focus)
        _notes(step, data, settings, head)
    elif step in WIDE_STEPS:
        step_figures.figures(step, data, settings, head, focus)
        _notes(step, data, settings, head)
    else:
        chart, notes = st.columns([3, 2])
        with chart:
            step_figures.figures(step, data, settings, head, focus)
        with notes:
            _notes(step, data, settings, head)
    if step in provenance.CELL_STEPS:
        worked_row.clicked_cell(step, data, settings, head, focus)
    if step in ROW_STEPS:
        worked_row.focus_row(step, data, head, focus, settings)


def _notes(step: str, data, settings, head: int) -> None:
    """The code, the shapes with their numbers, and what the step means."""
    code_lines.show(code_lines.STEP_SYMBOLS.get(step, ()))
    st.markdown(f"**{t('shape')}:** `{shapes_line(step, data, head, settings.base)}`")
    explain_key = {"mask": f"explain_mask_{settings.mask}"}.get(step, f"explain_{step}")
    if step in ("pe", "x_pe") and data.PE is None:
        explain_key = "explain_pe_off"
    st.info(t(explain_key))
    if data.n > MAX_SIDE:
        side = -(-data.n // -(-data.n // MAX_SIDE))  # cells per side after block averaging
        st.caption(t("downsampled", n=data.n, m=side))
    elif data.n > MAX_TEXT_CELLS:
        st.caption(t("too_big_for_text", n=data.n))
