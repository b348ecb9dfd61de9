"""What parallelism buys: RNN chain vs attention, measured growth, one pass vs K/V cache."""

import numpy as np
import streamlit as st

import core
from ui.cost import cost_ns, gpu_from_n, gpu_usable, recorded_gpu, recorded_table
from ui.feedback import trace_or_stop
from ui.figures import heatmap, line_chart
from ui.i18n import t
from ui.layout import grid
from ui.measure_panel import measured
from ui.settings import current

settings = current()
st.title(t("co_title"))
st.markdown(t("co_intro"))
data = trace_or_stop(settings)
st.info(t("co_path", n_minus_1=data.n - 1))

st.subheader(t("co_measure_title"))
st.caption(t("co_measure_text"))
st.caption(t("co_wall_time"))
st.caption(t("co_disturb"))
ns = cost_ns()
result = measured(ns, settings.d_model, settings.n_heads)
if result is None:
    st.caption(t("co_not_measured"))
else:
    big = [i for i, n in enumerate(ns) if 512 <= n <= 4096]
    fit = {
        name: core.growth_exponent([ns[i] for i in big], [result[name][i] for i in big])
        for name in ("attention", "memory", "rnn")
    }
    st.success(
        t(
            "co_fit",
            time=f"{fit['attention']:.2f}",
            memory=f"{fit['memory']:.2f}",
            rnn=f"{fit['rnn']:.2f}",
        )
    )
    series = ("attention", "gpu", "rnn", "loop") if gpu_usable() else ("attention", "rnn", "loop")
    times = {t(f"co_{name}"): result[name] for name in series}
    grid(
        [
            (
                line_chart(ns, times, title=t("co_time"), x_title="n", y_title=t("co_time")),
                "co_times",
            ),
            (
                line_chart(
                    ns,
                    {t("co_attention"): result["memory"]},
                    title=t("co_memory"),
                    x_title="n",
                    y_title=t("co_memory"),
                ),
                "co_memory",
            ),
        ],
        per_row=2,
    )
    if gpu_usable():
        from_n = gpu_from_n(result)
        never = t("co_gpu_never")
        st.info(never if from_n is None else t("co_gpu_from", n=from_n, limit=core.GPU_FROM_N))
if not gpu_usable():
    st.caption(t("co_no_gpu"))
    recorded = recorded_gpu()
    if recorded is not None:
        page = recorded["cost_page"]
        st.caption(
            t(
                "co_recorded",
                device=recorded["device"],
                cores=recorded["cpu_cores"],
                date=recorded["date"],
                from_n=gpu_from_n(page),
            )
        )
        milliseconds = st.column_config.NumberColumn(format="%.2f")
        st.dataframe(
            recorded_table(page, t),
            hide_index=True,
            column_config={t("co_col_cpu"): milliseconds, t("co_col_gpu"): milliseconds},
        )

st.subheader(t("co_train_title"))
st.markdown(t("co_train_text"))
st.caption(t("own_mask_note"))
X, W, h, n = data.trace.X, data.W, settings.n_heads, data.n
full = core.to_numpy(core.attention(X, W, h, mask=core.causal_mask(n), keep={"output"}).output)
incremental = core.to_numpy(core.decode_incremental(X, W, h))
st.success(t("co_same", diff=f"{np.abs(full - incremental).max():.1e}"))
tokens, dims = list(data.tokens), [str(c) for c in range(settings.d_model)]
common = {"decimals": settings.decimals, "row_title": t("axis_token"), "col_title": t("axis_dim")}
grid(
    [
        (heatmap(full, tokens, dims, title=t("co_full"), **common), "co_full"),
        (heatmap(incremental, tokens, dims, title=t("co_incremental"), **common), "co_incr"),
    ],
    per_row=2,
)
step = st.slider(t("co_step"), 0, n - 1, n - 1, key="co_step")
st.caption(t("co_cache", t=step, rows=step + 1, n=n))
grid(
    (
        (
            heatmap(
                getattr(data.trace, name)[0][: step + 1],
                tokens[: step + 1],
                None,
                title=f"{name} cache",
                **common,
            ),
            f"co_cache_{name}",
        )
        for name in ("K", "V")
    ),
    per_row=2,
)  # the keys and values cached after step t: rows 0..t
