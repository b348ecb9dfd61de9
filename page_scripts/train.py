"""Watch attention learn: a tiny attention-only model trained in NumPy in the background (shared
by every session with the same settings), its loss against chance, its attention maps and head
scores over training with the step at which the induction head formed, one backward pass opened
up, and training with and without ÷√d_k. The settings live in the URL."""

from functools import partial

import streamlit as st

from ui.kit.i18n import t
from ui.kit.session import TRAIN_SETTINGS
from ui.notebooks import train as notebook
from ui.notebooks.offer import offer
from ui.shell.page_header import page_header
from ui.shell.sidebar import current
from ui.views.train import backward, curves, live, maps, scaling
from ui.views.train.settings import settings as chosen

drawn = current()  # the numbering and the projector (this page reads none of the layer's)
base = drawn.base
page_header(folded=drawn.presentation)
st.info(t("train.think"), icon=":material/psychology:")
settings = chosen(drawn.presentation)
if settings is None:
    st.stop()
st.session_state[TRAIN_SETTINGS] = settings  # a room asks when its induction head forms
followed = live.followed(settings)
if followed is not None:
    run, seconds = followed
    _, snapshots = run.until(seconds)
    curves.when(run, seconds, base)
    st.subheader(t("train.maps_title"))
    maps.section(snapshots, base)
    st.subheader(t("train.scores_title"))
    st.caption(t("train.scores_text"))
    curves.scores_chart(snapshots, base)

st.subheader(t("train.backward_title"), anchor="backward")
backward.section(settings, base)
st.subheader(t("train.scale_title"), anchor="scaling")
scaling.section(settings)
if not drawn.presentation:  # a file to take home: not on the projected screen
    offer(partial(notebook.build, settings, drawn.lang), notebook.FILE)
