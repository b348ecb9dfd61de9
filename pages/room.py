"""Room: open a live room the class follows, or join one with its code."""

import streamlit as st

from ui.kit.i18n import t
from ui.shell.sidebar import current
from ui.views import room as room_page

current()  # the sidebar's settings (and, on a server's first visit, app.py's routing)
st.title(t("room_title"))
st.markdown(t("room_intro"))
room_page.store_notice()
room_page.open_a_room()
room_page.join_a_room()
