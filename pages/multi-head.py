"""Multi-head: the split into heads drawn explicitly, every head's A, the concat and W_O."""

import streamlit as st

from ui.kit.errors import trace_or_stop
from ui.kit.i18n import t
from ui.shell.sidebar import current
from ui.views import multi_head

settings = current()
st.title(t("mh_title"))
st.markdown(t("mh_intro"))
data = trace_or_stop(settings)
multi_head.split(data, settings)
multi_head.every_head(data, settings)
multi_head.one_wide_head(data, settings)
