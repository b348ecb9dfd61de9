"""The hand-check page's parts on screen: the chosen example's controls and its matrices (editable
on request), the table of e^x, the steps to work, the matrix result beside the per-token loop,
and the worksheet downloads. The learner's answer is in ui/views/hand_check/answer.py, the
arithmetic as text in ui/views/hand_check/text.py."""

from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

import core
from core.lessons import hand_example
from ui.kit.errors import show_input_error
from ui.kit.escape import markdown_text
from ui.kit.i18n import t
from ui.kit.number_text import indices, num, power_of_ten, row_label, shown_index
from ui.kit.url import told
from ui.notebooks import hand_check as notebook
from ui.notebooks.offer import offer
from ui.views.hand_check import text as handcheck
from ui.views.hand_check.worksheet import worksheet_html


def controls() -> bool:
    """d_v, the causal mask and the reset button; returns whether the mask is on."""
    told("hand_dv", lambda text: text in {str(d) for d in hand_example.D_V_CHOICES})
    told("hand_causal", lambda text: text.lower() in ("true", "false"))
    left, middle, right = st.columns([1, 2, 1], vertical_alignment="bottom")
    d_v = left.segmented_control(
        t("hand_check.hand_d_v"),
        hand_example.D_V_CHOICES,
        default=hand_example.D_K,
        key="hand_dv",
        required=True,
        bind="query-params",  # a shared link keeps d_v and the mask
    )
    causal = middle.toggle(
        t("hand_check.hand_causal"),
        key="hand_causal",
        help=t("hand_check.hand_causal_help"),
        bind="query-params",
    )
    reset = right.button(t("hand_check.hand_reset"), key="hand_reset")
    if reset or "hand_matrices" not in st.session_state:
        st.session_state["hand_matrices"] = hand_example.example(d_v)
    elif st.session_state["hand_matrices"]["W_V"].shape[1] != d_v:  # keep X, W_Q, W_K as edited
        st.session_state["hand_matrices"]["W_V"] = hand_example.example(d_v)["W_V"]
    else:
        return causal
    st.session_state["hand_version"] = st.session_state.get("hand_version", 0) + 1
    return causal


def _shown(M: np.ndarray, rows, base: int) -> pd.DataFrame:
    cells = [[f"{v:g}".replace("-", "−") for v in row] for row in M]
    return pd.DataFrame(cells, index=rows, columns=indices(M.shape[1], base))


def matrices_or_stop(tokens, base: int) -> dict:
    """X, W_Q, W_K, W_V: plain tables (nothing to print but the numbers), or editors once the
    learner asks to edit; a cell that is not a number stops the page with a message that names
    it, the typed text kept in its cell."""
    start = st.session_state["hand_matrices"]
    title, edit = st.columns([3, 1], vertical_alignment="bottom")
    title.subheader(t("hand_check.hand_inputs"))
    editing = edit.toggle(t("hand_check.hand_edit"), key="hand_edit")
    d_model, d_k = start["W_Q"].shape
    st.caption(t("hand_check.hand_shapes", d_model=d_model, d_k=d_k, d_v=start["W_V"].shape[1]))
    matrices, problem = {}, None
    for column, name in zip(st.columns([3.5, 4, 4, 4]), handcheck.MATRIX_NAMES, strict=True):
        with column:
            rows, cols = start[name].shape
            st.markdown(f"**{name}** `[{rows} × {cols}]`")
            labels = indices(rows, base)
            if name == "X":
                labels = [row_label(i, token, base) for i, token in enumerate(tokens)]
            shown = _shown(start[name], labels, base)
            if not editing:
                st.table(shown)
                matrices[name] = start[name]
                continue
            key = f"hand_{name}_{st.session_state['hand_version']}"
            narrow = {c: st.column_config.TextColumn(width=40) for c in shown.columns}
            edited = st.data_editor(shown, key=key, width="stretch", column_config=narrow)
            matrices[name], cell = handcheck.parse_matrix(name, edited.to_numpy())
            problem = problem or cell
    if problem is not None:
        _stop_at(problem, tokens, base)
    return matrices


def _stop_at(problem, tokens, base: int) -> None:
    """The cell that is not a number, named, with what was typed there (escaped)."""
    key = "hand_check.cell_not_finite" if problem.finite_but_not else "hand_check.cell_not_number"
    label = tokens[problem.row] if problem.matrix == "X" else f"d{shown_index(problem.row, base)}"
    where = {
        "matrix": markdown_text(problem.matrix),
        "row": shown_index(problem.row, base),
        "col": shown_index(problem.col, base),
    }
    st.error(t(key, label=markdown_text(label), text=markdown_text(problem.text), **where))
    st.stop()


def recipe(causal: bool) -> None:
    """The steps to work on paper, as the printed worksheet gives them, each naming what to
    check below."""
    st.subheader(t("hand_check.recipe"))
    keys = [k for k in ("qkv", "s", "mask", "a", "o") if k != "mask" or causal]
    st.markdown("\n".join(f"{n}. {t(f'hand_check.ws_task_{k}')}" for n, k in enumerate(keys, 1)))
    st.caption(t("hand_check.recipe_check"))


def trace_or_stop(matrices, causal: bool):
    try:
        return handcheck.hand_trace(matrices, causal)
    except core.InputError as error:
        show_input_error(error)
        st.stop()


def _frame(M, tokens, decimals: int, base: int) -> pd.DataFrame:
    labels = [row_label(i, token, base) for i, token in enumerate(tokens)]
    cells = [[num(v, decimals) for v in row] for row in M]
    return pd.DataFrame(cells, index=labels, columns=indices(M.shape[1], base))


def exp_table(steps) -> None:
    """The e^x a learner looks up for this softmax, to 4 decimals whatever else is shown."""
    rows = handcheck.exp_table(steps)
    st.markdown(f"**{t('hand_check.hand_exp_table')}**")
    values = [[value for _, value in rows]]
    table = pd.DataFrame(values, index=["eˣ"], columns=[f"e^{x}" for x, _ in rows])
    st.columns([1, 1])[0].table(table)  # four short numbers: half the width is plenty


def two_ways(trace, steps, tokens, settings) -> None:
    """The matrix result beside the per-token loop, on the same numbers, and how far apart."""
    d, base = settings.decimals, settings.base
    with st.expander(t("hand_check.hand_two_ways")):  # after the question: ask before telling
        left, right = st.columns(2)
        with left:
            st.markdown(f"**{t('hand_check.hand_matrix_form')}**")
            st.caption(t("hand_check.hand_A_caption"))
            st.table(_frame(trace.A[0], tokens, d, base))
            st.caption(t("hand_check.hand_O_caption"))
            st.table(_frame(trace.O[0], tokens, d, base))
        with right:
            st.markdown(f"**{t('hand_check.hand_loop_form')}**")
            for step in steps:
                lines = handcheck.worked_row(step, tokens, trace, d, base, settings.lang)
                with st.container(border=True):
                    st.markdown(f"**{lines[0]}**\n\n" + "\n".join(f"- {x}" for x in lines[1:]))
        loop_A = np.array([step.weights for step in steps])
        loop_O = np.array([step.output for step in steps])
        diff = max(np.abs(loop_A - trace.A[0]).max(), np.abs(loop_O - trace.O[0]).max())
        if diff < 1e-9:
            key = "hand_check.hand_agree" if diff else "hand_check.hand_agree_exactly"
            st.info(t(key, diff=power_of_ten(diff)), icon=":material/check_circle:")
        else:
            st.error(t("hand_check.hand_disagree", diff=power_of_ten(diff)))


def worksheet(matrices, trace, tokens, settings) -> None:
    """The printable worksheet (HTML), the matrices (CSV), and the worked solution to read here."""
    st.subheader(t("hand_check.worksheet"))
    blocks = handcheck.worksheet_blocks(
        matrices, trace, tokens, settings.decimals, settings.base, settings.lang
    )
    left, middle, right = st.columns(
        3
    )  # the files are made when they are downloaded, not on every run
    left.download_button(
        t("hand_check.download_html"),
        partial(worksheet_html, blocks, settings.lang, t("hand_check.ws_print")),
        "attention-worksheet.html",
        "text/html",
        key="download_html",
    )
    middle.download_button(
        t("hand_check.download_csv"),
        partial(handcheck.worksheet_csv, matrices, trace, settings.base),
        "attention-worksheet.csv",
        "text/csv",
        key="download_csv",
    )
    causal = bool(np.isneginf(trace.S_masked).any())
    build = partial(notebook.build, matrices, trace, tokens, causal, settings.lang, settings.base)
    offer(build, notebook.FILE, right)
    st.caption(t("hand_check.download_html_help"))
    with st.expander(t("hand_check.worksheet_open")):
        st.markdown(handcheck.worksheet_markdown(blocks))
