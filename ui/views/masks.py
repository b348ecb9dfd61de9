"""The masks page: the batch box and mask choice, the padded batch, the three masks, the masked
scores and weights of one sentence, and masking after the softmax beside the right order."""

import numpy as np
import pandas as pd
import streamlit as st

import core
from core.lessons.mistakes import mask_after_softmax
from ui.figures.heatmaps import A_heatmap, heatmap, mask_heatmap
from ui.figures.place import grid
from ui.kit import reference_lines as code_lines
from ui.kit.choose import selectbox
from ui.kit.errors import show_input_error
from ui.kit.i18n import DEFAULT_BATCH, labeller, t
from ui.kit.number_text import indices, row_label, shown_index
from ui.kit.url import url_choice
from ui.work.traces import BATCH_MASKS, TraceKey, batch_trace


def batch_or_stop(settings):
    """The batch the learner typed (up to 3 sentences, an empty one on request) and the mask
    chosen, or a message."""
    text = st.text_area(
        t("masks.batch"), value=DEFAULT_BATCH[settings.lang], key="batch", height=100
    )
    left, right = st.columns(2)
    kind = url_choice(
        right.radio,
        t("masks.mask_kind"),
        BATCH_MASKS,
        "batch_mask",
        "both",
        format_func=labeller("masks."),
        horizontal=True,
    )
    add_empty = left.toggle(t("masks.add_empty"), key="batch_empty")
    sentences = tuple(line for line in text.splitlines() if line.strip())[:3]
    sentences += ("",) if add_empty else ()
    try:
        if not any(s.strip() for s in sentences):
            raise core.InputError("empty_sentence")
        return batch_trace(sentences, TraceKey.of(settings), kind), kind
    except core.InputError as error:
        show_input_error(error)
        st.stop()


def padded_batch(batch, settings) -> int:
    """The padded tokens and lengths; returns the sentence the learner picks to look at."""
    b, n, base = len(batch.tokens), len(batch.tokens[0]), settings.base
    st.subheader(t("masks.padded", b=b, n=n, d=settings.d_model))
    table = pd.DataFrame(batch.tokens, columns=indices(n, base), index=indices(b, base))
    table.insert(0, t("masks.lengths"), batch.lengths)
    st.dataframe(table, width="stretch")
    return selectbox(
        st,
        t("masks.which"),
        range(b),
        index=min(1, b - 1),  # the second sentence is shorter: its padding shows
        key="batch_sentence",
        format_func=lambda i: row_label(
            i, " ".join(batch.tokens[i][: batch.lengths[i]]) or "∅", base
        ),
    )


def three_masks(batch, s: int, base: int) -> None:
    tokens = list(batch.tokens[s])
    st.subheader(t("masks.masks_title", s=shown_index(s, base)))
    masks = {
        "padding": batch.masks["padding"][s],
        "causal": batch.masks["causal"],
        "both": batch.masks["both"][s],
    }
    legend = (t("masks.allowed"), t("masks.forbidden"))
    figures = [
        (
            mask_heatmap(M, tokens, tokens, title=t(f"masks.{name}"), legend=legend),
            f"mk_mask_{name}",
        )
        for name, M in masks.items()
    ]
    grid(figures, per_row=3)


def masked_scores_and_weights(batch, s: int, settings) -> None:
    tokens, forbidden, n = list(batch.tokens[s]), ~batch.allowed[s], len(batch.tokens[s])
    dec = settings.decimals
    st.subheader(t("masks.result_title", head=shown_index(0, settings.base)))
    code_lines.show(("S_masked", "A"))
    S_masked = heatmap(
        batch.trace.S_masked[s, 0],
        tokens,
        tokens,
        title=t("masks.S_masked"),
        decimals=dec,
        forbidden=forbidden,
    )
    A = A_heatmap(batch.trace.A[s, 0], tokens, title="A", decimals=dec, forbidden=forbidden)
    grid([(S_masked, "mk_masked"), (A, "mk_weights")], per_row=2)
    if batch.lengths[s] == 0:
        st.warning(t("masks.empty_row", s=shown_index(s, settings.base)))
    elif batch.lengths[s] < n:
        st.info(t("masks.padded_rows"))


def mask_after_the_softmax(batch, s: int, dec: int) -> None:
    tokens, forbidden = list(batch.tokens[s]), ~batch.allowed[s]
    st.subheader(t("masks.order_title"))
    st.markdown(t("masks.order_text"))
    wrong = mask_after_softmax(batch.trace.S_scaled[s, 0], batch.allowed[s])
    top = float(max(np.nanmax(wrong), np.nanmax(batch.trace.A[s, 0])))  # one colour range
    common = {"decimals": dec, "forbidden": forbidden, "bound": top}
    right = A_heatmap(batch.trace.A[s, 0], tokens, title=t("masks.right"), **common)
    grid(
        [
            (right, "mk_right"),
            (A_heatmap(wrong, tokens, title=t("masks.wrong"), **common), "mk_wrong"),
        ],
        per_row=2,
    )
