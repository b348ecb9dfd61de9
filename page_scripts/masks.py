"""Masks on a batch: padding, causal, both; masked S with −∞, A with exact zeros; wrong order."""

from functools import partial

import streamlit as st

from ui.kit.i18n import t
from ui.notebooks import masks as notebook
from ui.notebooks.offer import offer
from ui.shell.page_header import page_header
from ui.shell.sidebar import current
from ui.views import masks

settings = current()
page_header()
st.caption(t("shell.own_mask_note"))
batch, kind = masks.batch_or_stop(settings)
s = masks.padded_batch(batch, settings)
masks.three_masks(batch, s, settings.base)
masks.masked_scores_and_weights(batch, s, settings)
masks.mask_after_the_softmax(batch, s, settings.decimals)
if not settings.presentation:  # a file to take home: not on the projected screen
    offer(partial(notebook.build, batch, settings, kind, settings.lang), notebook.FILE)
