"""Walkthrough: X -> Q, K, V -> QKᵀ -> ÷√d_k -> mask -> softmax -> AV -> heads, step by step."""

from functools import partial

import streamlit as st

from ui.kit.fold import fold
from ui.kit.i18n import t
from ui.notebooks import walkthrough as notebook
from ui.notebooks.offer import offer
from ui.shell.a11y import page_title
from ui.shell.page_header import page_header
from ui.shell.sidebar import current
from ui.views.walkthrough import export
from ui.views.walkthrough import view as walkthrough
from ui.views.walkthrough.steps import NAMES
from ui.work.traces import trace_or_stop

settings = current()
title, caption = st.container(), st.container(key="app_caption")
caveat = st.container(key="app_caption_phone")  # a phone's one line instead (style.py)
step, pickers = walkthrough.step_navigation(NAMES, projector=settings.presentation)
page_title(t(f"walkthrough.title_{step}"), t("shell.page_walkthrough"))  # the tab says the step
if not settings.presentation:  # a projector keeps its height for the step and its chart
    with title:
        page_header(compact=step != NAMES[0])  # after step 1 the step's title leads
data = trace_or_stop(settings)
if not settings.presentation:
    caption.caption(f"{t('shell.tokens_line', n=data.n)} · {t('shell.random_weights_note')}")
    caveat.caption(t("shell.random_weights_short"))
lead = walkthrough.heading(step, settings)
head, focus = walkthrough.row_controls(step, data, settings, pickers)
walkthrough.render(step, data, settings, head, focus, lead)
DOWNLOADS = (  # (label, builder, file name, MIME type)
    ("walkthrough.export_npz", export.to_npz, "attention.npz", "application/octet-stream"),
    ("walkthrough.export_csv", export.to_csv_zip, "attention-csv.zip", "application/zip"),
)
if walkthrough.extras_shown(settings):  # the page's foot: not projected, nor for a follower
    walkthrough.step_band(NAMES, step, suffix="_bottom")  # Previous / Next after the step too
    st.caption(walkthrough.backend_line(data.backend))
    offer(partial(notebook.build, data, settings, settings.lang), notebook.FILE)  # as every page
    if box := fold(t("walkthrough.export_title"), "walkthrough_export"):  # (drawn when open)
        row = box.container(horizontal=True)  # (wraps)
        for label, build, name, mime in DOWNLOADS:
            row.download_button(t(label), partial(build, data), name, mime, key=label,
                                on_click="ignore")  # fmt: skip
