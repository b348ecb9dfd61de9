"""Room: open a live room the class follows, or join one with its code."""

import streamlit as st

from ui import room_page
from ui.i18n import t

st.title(t("room_title"))
st.markdown(t("room_intro"))
room_page.open_a_room()
room_page.join_a_room()
