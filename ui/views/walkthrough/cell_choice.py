"""A cell chosen from the keyboard: beside the query-row picker, a column picker ("Key (column)",
or on the O = AV step "Dimension (column)") with "—" first. The focus row and that column name
the same cell a click on the chart names: both set the session's CELL, (step, row, column), which
worked.py's story reads; a click sets the picker, and a new row keeps the chosen column."""

import streamlit as st

from ui.kit.choose import selectbox
from ui.kit.i18n import t
from ui.kit.number_text import row_label, shown_index
from ui.kit.session import CELL

KEY = "cell_column"  # the picker's widget key
NONE = "—"


def chosen_column(step: str, focus: int) -> int | None:
    """The column of this step's chosen cell when it lies on the focus row, else None."""
    cell = st.session_state.get(CELL)
    if cell is None or cell[0] != step or cell[1] != focus:
        return None
    return cell[2]


def _chose_column(step: str) -> None:
    column, state = st.session_state.get(KEY), st.session_state
    if column is None:
        if state.get(CELL) is not None and state[CELL][0] == step:
            del state[CELL]
    else:
        state[CELL] = (step, state["focus"], column)


def follow_row(step: str) -> None:
    """A new focus row (its picker's callback) carries this step's chosen column with it."""
    cell = st.session_state.get(CELL)
    if cell is not None and cell[0] == step:
        st.session_state[CELL] = (step, st.session_state["focus"], cell[2])


def picker(band, step: str, data, focus: int, base: int) -> None:
    """The column picker in ``band`` (the row of pickers above the chart, or a projector's band),
    set from the chosen cell before it is drawn: a click on the chart moves it too (and the value
    set on every run relabels it when the numbering switches)."""
    if step == "av":  # a cell of O: a query row and one of d_v dimensions
        name, count = t("walkthrough.cell_dimension"), data.d_v
        label = lambda c: NONE if c is None else str(shown_index(c, base))  # noqa: E731
    else:
        name, count = t("walkthrough.cell_key"), data.n
        label = lambda j: NONE if j is None else row_label(j, data.tokens[j], base)  # noqa: E731
    column = chosen_column(step, focus)
    st.session_state[KEY] = column if column is not None and column < count else None
    band.markdown(f"**{name}**", width="content")
    selectbox(
        band, name, [None, *range(count)], key=KEY, on_change=_chose_column, args=(step,),
        format_func=label, label_visibility="collapsed", width=150,
    )  # fmt: skip
