"""Hand check: three tokens, small whole numbers, every matrix editable, every step written out."""

import pandas as pd
import streamlit as st

import core
from ui import handcheck
from ui.feedback import show_input_error
from ui.i18n import labeller, t
from ui.settings import current

settings = current()
st.title(t("hand_title"))
st.markdown(t("hand_intro"))
st.caption(t("hand_sidebar_note"))

left, right = st.columns([1, 3], vertical_alignment="bottom")
d_model = left.segmented_control(
    t("hand_d_model"), (2, 3, 4), default=2, key="hand_d", required=True
)
if right.button(t("hand_reset"), key="hand_reset") or st.session_state.get("hand_shape") != d_model:
    st.session_state["hand_matrices"] = handcheck.default_matrices(d_model)
    st.session_state["hand_shape"] = d_model
    st.session_state["hand_version"] = st.session_state.get("hand_version", 0) + 1

tokens = handcheck.HAND_TOKENS[settings.lang]
base = st.session_state["hand_matrices"]
st.subheader(t("hand_inputs"))
matrices, problem = {}, None
for column, name in zip(st.columns(4), handcheck.MATRIX_NAMES):
    with column:
        st.markdown(f"**{name}** `[{base[name].shape[0]} × {base[name].shape[1]}]`")
        index = list(tokens) if name == "X" else [str(r) for r in range(base[name].shape[0])]
        frame = pd.DataFrame(
            base[name], index=index, columns=[str(c) for c in range(base[name].shape[1])]
        ).map(lambda v: f"{v:g}")
        edited = st.data_editor(
            frame, key=f"hand_{name}_{st.session_state['hand_version']}", width="stretch"
        )
        values, cell = handcheck.parse_matrix(name, edited.to_numpy())
        if cell is not None and problem is None:
            problem = cell
        matrices[name] = values

if problem is not None:
    key = "cell_not_finite" if problem.finite_but_not else "cell_not_number"
    label = tokens[problem.row] if problem.matrix == "X" else f"d{problem.row}"
    st.error(
        t(
            key,
            matrix=problem.matrix,
            row=problem.row,
            label=label,
            col=problem.col,
            text=problem.text,
        )
    )
    st.stop()
try:
    trace = handcheck.hand_trace(matrices)
except core.InputError as error:
    show_input_error(error)
    st.stop()

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
if typed.strip():
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
        st.error(
            t("answer_wrong", bad=len(check.wrong), k=len(expected))
            + "\n\n"
            + "\n".join(f"- {line}" for line in lines)
        )

st.subheader(t("worksheet"))
sheet = handcheck.worksheet_markdown(matrices, trace, tokens, settings.decimals, settings.lang)
d1, d2, d3 = st.columns(3)
d1.download_button(
    t("download_md"), sheet, "attention-worksheet.md", "text/markdown", key="download_md"
)
d2.download_button(
    t("download_tex"),
    handcheck.worksheet_latex(matrices, trace, tokens, settings.decimals, settings.lang),
    "attention-worksheet.tex",
    "application/x-tex",
    key="download_tex",
)
d3.download_button(
    t("download_csv"),
    handcheck.worksheet_csv(matrices, trace),
    "attention-worksheet.csv",
    "text/csv",
    key="download_csv",
)
with st.expander(t("worksheet_open")):
    st.markdown(sheet)
