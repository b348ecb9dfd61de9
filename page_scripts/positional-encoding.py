"""Positional encoding: the PE matrix, its sine and cosine columns, and why word order needs it."""

import streamlit as st

from ui.shell.page_header import page_header
from ui.shell.sidebar import current
from ui.views import positional_encoding as pe

settings = current()
page_header()
for formula in pe.FORMULAS:
    st.latex(formula)
PE, n, d = pe.matrix(settings.decimals, settings.base)
pe.curves(PE, settings.base)
pe.one_entry(n, d, settings.decimals)
pe.word_order(settings)
