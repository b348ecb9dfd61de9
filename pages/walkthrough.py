"""Walkthrough: X -> Q, K, V -> QKᵀ -> ÷√d_k -> mask -> softmax -> AV -> heads, step by step."""

from functools import partial

import streamlit as st

from ui import export, walkthrough
from ui.feedback import trace_or_stop
from ui.i18n import t
from ui.settings import current

settings = current()
st.title(t("app_title"))
data = trace_or_stop(settings)

st.caption(f"{t('tokens_line', n=data.n)} · {t('random_weights_note')}")
step = walkthrough.step_navigation(walkthrough.STEPS)
head, focus = walkthrough.row_controls(step, data, settings.n_heads)
walkthrough.render(step, data, settings, head, focus)
st.caption(walkthrough.backend_line(data.backend))
with st.expander(t("export_title")):
    left, right = st.columns(2)
    left.download_button(
        t("export_npz"),
        partial(export.to_npz, data),
        "attention.npz",
        "application/octet-stream",
        key="export_npz",
    )
    right.download_button(
        t("export_csv"),
        partial(export.to_csv_zip, data),
        "attention-csv.zip",
        "application/zip",
        key="export_csv",
    )
    st.caption(t("export_png"))
