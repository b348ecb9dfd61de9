"""Self-Attention, Step by Step: page setup, the shared sidebar, and the pages."""

import streamlit as st

import preload  # noqa: F401 (first: a page's lazy imports done before any page runs; preload.py)
from ui.kit import emoji_check
from ui.kit.errors import show_unexpected_error
from ui.kit.session import PAGE_SCRIPT, SETTINGS_DRAWN
from ui.room.hooks import (
    follow_page,
    join_from_url,
    keep_cookies,
    publish_view,
    room_panel,
    room_sets,
)
from ui.shell.a11y import page_semantics
from ui.shell.navigation import session_pages
from ui.shell.registry import by_url
from ui.shell.sidebar import language, sidebar
from ui.shell.style import FAVICON, apply_style
from ui.work import model_load

emoji_check.remember()  # Streamlit's emoji check, once per label (ui/kit/emoji_check.py)

st.set_page_config(
    page_title="Self-Attention, Step by Step · 自注意力",
    page_icon=FAVICON,
    layout="wide",
    # a projector (?big=true) starts with the sidebar folded away: the chart gets the width
    initial_sidebar_state="collapsed" if st.query_params.get("big") == "true" else "auto",
)
join_from_url()  # a room in the URL, and the teacher's latest view, before any widget is drawn
lang = language()


# expanded: every page listed where the navigation folds into the sidebar (a phone), with no
# "View N more" button, which Streamlit writes in English whatever the page's language
page = st.navigation(session_pages(lang), position="top", expanded=True)
here = by_url(page.url_path)
if here.model:  # begun before the sidebar and the page draw (a no-op once begun, or on serve.py)
    model_load.start_first()
st.session_state[PAGE_SCRIPT] = here.script
page_semantics(lang, here.nav_key)  # <html lang>, the tab's title, the charts' names
follow_page(here.script)
settings = sidebar(lang, unused=here.unused, room_sets=room_sets())
st.session_state[SETTINGS_DRAWN] = settings
apply_style(settings.presentation)
room_panel(settings)
keep_cookies()  # a room's cookies: this browser's id, a teacher's key
try:
    page.run()
except Exception as error:  # st.stop() and st.rerun() are BaseExceptions: they pass through
    show_unexpected_error(error)
publish_view(settings)  # in a room, the teacher's view as this run left it
