"""FlashAttention's tiles: the same A V, tile by tile, with the online softmax; memory against n."""

import streamlit as st

from ui import flash
from ui.feedback import trace_or_stop
from ui.i18n import t
from ui.settings import current

settings = current()
st.title(t("fl_title"))
st.markdown(t("fl_intro"))
data = trace_or_stop(settings)
flash.tiles(data, settings)
flash.memory()
