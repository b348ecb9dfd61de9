"""FlashAttention's tiles: the same A V, tile by tile, with the online softmax; memory against n."""

import streamlit as st

from ui.kit.errors import trace_or_stop
from ui.kit.i18n import t
from ui.shell.sidebar import current
from ui.views import flash

settings = current()
st.title(t("fl_title"))
st.markdown(t("fl_intro"))
data = trace_or_stop(settings)
flash.tiles(data, settings)
flash.memory()
