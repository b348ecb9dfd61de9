"""Below a walkthrough step: the clicked cell's provenance, and the query row worked out with its
real numbers."""

import numpy as np
import streamlit as st

from ui.kit.announce import announce
from ui.kit.escape import markdown_text
from ui.kit.i18n import t
from ui.kit.number_text import shown_index, sub
from ui.kit.session import CELL
from ui.views.walkthrough import block as block_step
from ui.views.walkthrough import cell_story as provenance
from ui.views.walkthrough import row_story as arithmetic


def clicked_cell(step: str, data, settings, head: int, focus: int) -> None:
    """The provenance of the clicked cell of this step's matrix (when it is on the focus row)."""
    cell = st.session_state.get(CELL)
    if cell is None or cell[0] != step or cell[1] != focus:
        announce("cell", "")  # (the next cell chosen is said, even if it is this one again)
        st.caption(t("walkthrough.cell_hint"))
        return
    _, i, j = cell
    base = settings.base
    title = t("walkthrough.cell_title", i=shown_index(i, base), j=shown_index(j, base))
    lines = provenance.story(step, data.trace, head, i, j, settings.decimals, base)
    # a keyboard's choice is said where the learner is: the story itself is below the chart
    announce("cell", t("a11y.said", what=title, value=lines[-1].replace("**", "")))
    with st.container(border=True, key="cell_story"):
        st.markdown(f"**{title}**")
        st.markdown("\n".join(f"- {line}" for line in lines))
    st.caption(t("walkthrough.unrounded_note"))  # below the box: the box holds the story alone


def focus_row(step: str, data, head: int, i: int, settings) -> None:
    """The focus token's row with its real numbers, and a note that they were worked unrounded."""
    base, token = settings.base, markdown_text(data.tokens[i])
    key = "walkthrough.focus_title_block" if step == "block" else "walkthrough.focus_title"
    title = t(key, i=shown_index(i, base), token=token)  # at the block the row asks nothing
    with st.expander(title, expanded=data.n <= 12):
        if step == "block":
            heading = t("walkthrough.focus_block", i=shown_index(i, base), token=token)
            lines = block_step.focus_lines(data, settings, i)
        else:
            heading, lines = _attention_lines(step, data, head, i, settings)
        st.markdown(f"**{heading}**")
        st.markdown("\n".join(f"- {line}" for line in lines))
        st.caption(t("walkthrough.unrounded_note"))


def _attention_lines(step: str, data, head: int, i: int, settings) -> tuple[str, list[str]]:
    """The heading and the lines of query row i at an attention step."""
    tr, decimals, base = data.trace, settings.decimals, settings.base
    A_row = tr.A[head, i]
    keys = arithmetic.keys_to_show(A_row)
    allowed_row = np.isfinite(tr.S_masked[head, i])
    label = {"i": shown_index(i, base), "si": sub(i + base)}
    if step in ("scores", "scaled"):
        heading = t("walkthrough.focus_dot", **label)
        lines = arithmetic.dot_product_lines(
            tr.Q[head, i], tr.K[head], keys, i, data.d_k, allowed_row, decimals, base=base
        )
    elif step == "mask":
        heading = t("walkthrough.focus_mask", **label)
        lines = arithmetic.mask_lines(tr.S_scaled[head, i], allowed_row, keys, i, decimals,
                                      base=base)  # fmt: skip
    elif step == "softmax":  # says how many keys it leaves out itself, before their sum
        heading = t("walkthrough.focus_softmax", **label)
        return heading, arithmetic.softmax_lines(tr.S_masked[head, i], A_row, keys, i, decimals,
                                                 base=base)  # fmt: skip
    else:
        heading = t("walkthrough.focus_output", **label)
        lines = arithmetic.weighted_sum_lines(
            A_row, tr.V[head], keys, i, tr.O[head, i], decimals, base=base
        )
    if len(keys) < data.n:
        lines.append(t("walkthrough.focus_more", k=data.n - len(keys)))
    return heading, lines
