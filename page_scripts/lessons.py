"""Lessons: the three tutorials' lesson plans, each example one click away (or opened as a room)."""

import streamlit as st

from ui.kit.i18n import t
from ui.shell.page_header import page_header
from ui.shell.sidebar import current
from ui.views import lessons

settings = current()
page_header()
st.caption(t("lessons.lessons_intro"))
lessons.show(settings.lang, settings.base)
