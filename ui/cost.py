"""The cost page's sections: the shared measurement's charts, the recorded GPU table, and one
training pass against token-by-token decoding."""

import numpy as np
import streamlit as st

import core
from ui.compute import TraceKey, sentence_trace
from ui.cost_measure import gpu_from_n, gpu_usable, recorded_gpu, recorded_table
from ui.figures import heatmap, line_chart
from ui.i18n import t
from ui.layout import grid


def measured_charts(ns, result: dict) -> None:
    """The fitted exponents, time and memory against n, and (with a GPU) where it starts to win."""
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
    memory = {t("co_attention"): result["memory"]}
    grid(
        [
            (
                line_chart(ns, times, title=t("co_time"), x_title="n", y_title=t("co_time")),
                "co_times",
            ),
            (
                line_chart(ns, memory, title=t("co_memory"), x_title="n", y_title=t("co_memory")),
                "co_memory",
            ),
        ],
        per_row=2,
    )
    if gpu_usable():
        from_n = gpu_from_n(result)
        never = t("co_gpu_never")
        st.info(never if from_n is None else t("co_gpu_from", n=from_n, limit=core.GPU_FROM_N))


def recorded_gpu_table() -> None:
    """Without a GPU here: what bench/gpu_timing.py measured on one."""
    st.caption(t("co_no_gpu"))
    recorded = recorded_gpu()
    if recorded is None:
        return
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


@st.cache_data(max_entries=32, show_spinner=False)
def training_and_decoding(key: TraceKey) -> tuple[np.ndarray, np.ndarray]:
    """output with a causal mask in one pass, and token by token with a K/V cache (host arrays)."""
    data = sentence_trace(key)
    X, W, h, n = data.trace.X, data.W, key.n_heads, data.n
    full = core.attention(X, W, h, mask=core.causal_mask(n), keep={"output"}).output
    return core.to_numpy(full), core.to_numpy(core.decode_incremental(X, W, h))


def training_against_decoding(data, settings) -> None:
    """The two give the same rows; the K/V cache grows by one row a step."""
    full, incremental = training_and_decoding(TraceKey.of(settings))
    st.success(t("co_same", diff=f"{np.abs(full - incremental).max():.1e}"))
    tokens, dims = list(data.tokens), [str(c) for c in range(settings.d_model)]
    common = {
        "decimals": settings.decimals,
        "row_title": t("axis_token"),
        "col_title": t("axis_dim"),
    }
    grid(
        [
            (heatmap(full, tokens, dims, title=t("co_full"), **common), "co_full"),
            (heatmap(incremental, tokens, dims, title=t("co_incremental"), **common), "co_incr"),
        ],
        per_row=2,
    )
    step = st.slider(t("co_step"), 0, data.n - 1, data.n - 1, key="co_step")
    st.caption(t("co_cache", t=step, rows=step + 1, n=data.n))
    caches = [
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
        for name in ("K", "V")  # the keys and values cached after step t: rows 0..t
    ]
    grid(caches, per_row=2)
