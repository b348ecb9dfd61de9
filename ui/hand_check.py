"""The hand-check page's parts on screen: the editable matrices, the learner's answer with what is
off, and the worksheet downloads. The arithmetic and the worksheets are in ui/handcheck.py."""

import pandas as pd
import streamlit as st

import core
from ui import handcheck
from ui.feedback import show_input_error
from ui.i18n import labeller, t


def _reset_when_asked_or_resized() -> None:
    left, right = st.columns([1, 3], vertical_alignment="bottom")
    d_model = left.segmented_control(
        t("hand_d_model"), (2, 3, 4), default=2, key="hand_d", required=True
    )
    resized = st.session_state.get("hand_shape") != d_model
    if right.button(t("hand_reset"), key="hand_reset") or resized:
        st.session_state["hand_matrices"] = handcheck.default_matrices(d_model)
        st.session_state["hand_shape"] = d_model
        st.session_state["hand_version"] = st.session_state.get("hand_version", 0) + 1


def matrices_or_stop(tokens) -> dict:
    """X, W_Q, W_K, W_V as the learner edited them; a cell that is not a number stops the page
    with a message that names it, the typed text kept in its cell."""
    _reset_when_asked_or_resized()
    base = st.session_state["hand_matrices"]
    st.subheader(t("hand_inputs"))
    matrices, problem = {}, None
    for column, name in zip(st.columns(4), handcheck.MATRIX_NAMES):
        with column:
            rows, cols = base[name].shape
            st.markdown(f"**{name}** `[{rows} × {cols}]`")
            index = list(tokens) if name == "X" else [str(r) for r in range(rows)]
            frame = pd.DataFrame(base[name], index=index, columns=[str(c) for c in range(cols)])
            key = f"hand_{name}_{st.session_state['hand_version']}"
            edited = st.data_editor(frame.map(lambda v: f"{v:g}"), key=key, width="stretch")
            values, cell = handcheck.parse_matrix(name, edited.to_numpy())
            problem = problem or cell
            matrices[name] = values
    if problem is not None:
        key = "cell_not_finite" if problem.finite_but_not else "cell_not_number"
        label = tokens[problem.row] if problem.matrix == "X" else f"d{problem.row}"
        where = {"matrix": problem.matrix, "row": problem.row, "col": problem.col}
        st.error(t(key, label=label, text=problem.text, **where))
        st.stop()
    return matrices


def trace_or_stop(matrices):
    try:
        return handcheck.hand_trace(matrices)
    except core.InputError as error:
        show_input_error(error)
        st.stop()


def answer(trace, tokens) -> None:
    """A row of A or O typed by the learner, checked entry by entry against the trace."""
    st.subheader(t("your_answer"))
    a, b, c = st.columns([1, 1, 2], vertical_alignment="bottom")
    which = a.selectbox(
        t("answer_matrix"), ("A", "O"), key="answer_matrix", format_func=labeller("answer")
    )
    row = b.selectbox(
        t("answer_which"),
        range(handcheck.N),
        key="answer_row",
        format_func=lambda i: f"{i} · {tokens[i]}",
    )
    expected = (trace.A[0] if which == "A" else trace.output)[row]
    typed = c.text_input(t("answer_input", k=len(expected)), key="answer_text")
    if not typed.strip():
        return
    check = handcheck.check_answer(typed, expected)
    if check.problem == "count":
        st.warning(t("answer_count", **check.detail))
    elif check.problem == "not_a_number":
        st.warning(t("answer_nan", **check.detail))
    elif check.right:
        st.success(t("answer_ok", k=len(expected), tol=0.01))
    else:
        lines = [
            t("answer_off", j=j, typed=f"{v:g}", expected=f"{e:.4f}", diff=f"{d:.4f}")
            for j, v, e, d in check.wrong
        ]
        heading = t("answer_wrong", bad=len(check.wrong), k=len(expected))
        st.error(heading + "\n\n" + "\n".join(f"- {line}" for line in lines))


def worksheet(matrices, trace, tokens, settings) -> None:
    """The worksheet to download (Markdown, LaTeX, CSV) and to read here."""
    st.subheader(t("worksheet"))
    args = (matrices, trace, tokens, settings.decimals, settings.lang)
    sheet = handcheck.worksheet_markdown(*args)
    downloads = (
        ("download_md", sheet, "attention-worksheet.md", "text/markdown"),
        (
            "download_tex",
            handcheck.worksheet_latex(*args),
            "attention-worksheet.tex",
            "application/x-tex",
        ),
        (
            "download_csv",
            handcheck.worksheet_csv(matrices, trace),
            "attention-worksheet.csv",
            "text/csv",
        ),
    )
    for column, (key, data, name, mime) in zip(st.columns(3), downloads, strict=True):
        column.download_button(t(key), data, name, mime, key=key)
    with st.expander(t("worksheet_open")):
        st.markdown(sheet)
