"""Masks on a batch: padding, causal, both; masked S with −∞, A with exact zeros; wrong order."""

import pandas as pd
import streamlit as st

import core
from core.mistakes import mask_after_softmax
from ui.compute import BATCH_MASKS, TraceKey, batch_trace
from ui.feedback import show_input_error
from ui.figures import heatmap, weights_heatmap
from ui.i18n import DEFAULT_BATCH, labeller, t
from ui.layout import grid
from ui.settings import current, url_choice

settings = current()
st.title(t("mk_title"))
st.markdown(t("mk_intro"))
st.caption(t("own_mask_note"))
text = st.text_area(t("mk_batch"), value=DEFAULT_BATCH[settings.lang], key="batch", height=100)
left, right = st.columns(2)
kind = url_choice(
    right.radio,
    t("mk_mask_kind"),
    BATCH_MASKS,
    "batch_mask",
    "both",
    format_func=labeller("mk"),
    horizontal=True,
)
add_empty = left.toggle(t("mk_add_empty"), key="batch_empty")
sentences = tuple(line for line in text.splitlines() if line.strip())[:3] + (
    ("",) if add_empty else ()
)
try:
    if not any(s.strip() for s in sentences):
        raise core.InputError("empty_sentence")
    batch = batch_trace(sentences, TraceKey.of(settings), kind)
except core.InputError as error:
    show_input_error(error)
    st.stop()

b, n = len(batch.tokens), len(batch.tokens[0])
st.subheader(t("mk_padded", b=b, n=n, d=settings.d_model))
table = pd.DataFrame(batch.tokens, columns=[str(j) for j in range(n)])
table.insert(0, t("mk_lengths"), batch.lengths)
st.dataframe(table, width="stretch")

s = st.selectbox(
    t("mk_which"),
    range(b),
    index=min(1, b - 1),  # the second sentence is shorter: its padding shows
    key="batch_sentence",
    format_func=lambda i: f"{i} · {' '.join(batch.tokens[i][: batch.lengths[i]]) or '∅'}",
)
tokens, dec = list(batch.tokens[s]), settings.decimals
st.subheader(t("mk_masks_title", s=s))
masks = {
    "padding": batch.masks["padding"][s],
    "causal": batch.masks["causal"],
    "both": batch.masks["both"][s],
}
grid(
    (
        (
            heatmap(
                M.astype(float), tokens, tokens, title=t(f"mk_{name}"), scale="unit", decimals=0
            ),
            f"mk_mask_{name}",
        )
        for name, M in masks.items()
    ),
    per_row=3,
)

st.subheader(t("mk_result_title"))
forbidden = ~batch.allowed[s]
A = batch.trace.A[s, 0]
grid(
    [
        (
            heatmap(
                batch.trace.S_masked[s, 0],
                tokens,
                tokens,
                title="S / √d_k + mask",
                decimals=dec,
                forbidden=forbidden,
            ),
            "mk_masked",
        ),
        (
            weights_heatmap(A, tokens, title="A", decimals=dec, forbidden=forbidden),
            "mk_weights",
        ),
    ],
    per_row=2,
)
if batch.lengths[s] == 0:
    st.warning(t("mk_empty_row", s=s))
elif batch.lengths[s] < n:
    st.info(t("mk_padded_rows"))

st.subheader(t("mk_order_title"))
st.markdown(t("mk_order_text"))
wrong = mask_after_softmax(batch.trace.S_scaled[s, 0], batch.allowed[s])
grid(
    [
        (
            weights_heatmap(A, tokens, title=t("mk_right"), decimals=dec, forbidden=forbidden),
            "mk_right",
        ),
        (
            weights_heatmap(wrong, tokens, title=t("mk_wrong"), decimals=dec, forbidden=forbidden),
            "mk_wrong",
        ),
    ],
    per_row=2,
)
