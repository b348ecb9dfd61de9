"""What parallelism buys: path lengths (RNN, CNN, attention), measured growth, and training in
one pass against generation one token at a time with a K/V cache."""

import streamlit as st

from measure.cost import cost_ns, gpu_usable
from ui.kit.i18n import t
from ui.kit.measure_panel import measured
from ui.shell.page_header import page_header
from ui.shell.registry import script_path
from ui.shell.sidebar import current
from ui.views.cost import charts as cost
from ui.views.cost.paths import paths
from ui.views.cost.training import generation, training
from ui.work.traces import trace_or_stop

settings = current()
page_header()
data = trace_or_stop(settings)
st.info(t("cost.path", n_minus_1=data.n - 1))
paths(data.n)

st.subheader(t("cost.measure_title"))
st.caption(t("cost.measure_text"))
st.caption(t("cost.wall_time"))
st.caption(t("cost.disturb"))
ns = cost_ns()
result = measured(ns, settings.d_model, settings.n_heads)
if result is not None:
    cost.measured_charts(ns, result, settings.d_model)
elif not cost.recorded_charts():
    st.caption(t("cost.not_measured"))
if not gpu_usable():
    cost.recorded_gpu_table()

st.subheader(t("cost.train_title"))
st.markdown(t("cost.train_text"))
st.caption(t("shell.own_mask_note"))
training(data, settings)
st.subheader(t("cost.gen_title"), anchor="generation")
generation(data, settings)
st.page_link(script_path("generate"), label=t("cost.to_generate"), icon=":material/history_edu:")
