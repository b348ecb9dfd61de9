"""Self-Attention, Step by Step: entry point."""

import streamlit as st

st.set_page_config(page_title="Self-Attention, Step by Step", page_icon="🔎", layout="wide")
st.title("Self-Attention, Step by Step · 自注意力，一步一步")
