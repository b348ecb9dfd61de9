"""The cost page's measurements: the shared measurement's charts (or, before anyone measured, a
recorded one, labelled as such), and the recorded GPU table."""

import numpy as np
import pandas as pd
import streamlit as st

import core
from measure.cost import fitted_growth, gpu_from_n, gpu_usable, recorded_cost, recorded_gpu
from ui.figures.lines import line_chart
from ui.figures.place import grid
from ui.kit.i18n import t


def measured_charts(ns, result: dict, d_model: int) -> None:
    """The fitted exponents (only when the fit is reliable: else measure_panel says the machine
    was too busy), time and memory against n, and (with a GPU) where it starts to win."""
    fit = result.get("fit") or fitted_growth(result, d_model)  # a recorded result has none
    if fit["reliable"]:
        st.success(
            t(
                "cost.fit",
                from_n=fit["from_n"],
                to_n=fit["to_n"],
                time=f"{fit['time']:.2f}",
                memory=f"{fit['memory']:.2f}",
                rnn=f"{fit['rnn']:.2f}",
                r2=f"{fit['r2']:.3f}",
            )
        )
    series = ("attention", "gpu", "rnn", "loop") if gpu_usable() else ("attention", "rnn", "loop")
    times = {
        t(f"cost.{name}"): result[name]
        for name in series
        if np.isfinite(np.asarray(result[name], dtype=float)).any()  # a recorded one has no GPU
    }
    memory = {t("cost.attention"): result["memory"]}
    grid(
        [
            (
                line_chart(ns, times, title=t("cost.time"), x_title="n", y_title=t("cost.time")),
                "co_times",
            ),
            (
                line_chart(
                    ns, memory, title=t("cost.memory"), x_title="n", y_title=t("cost.memory")
                ),
                "co_memory",
            ),
        ],
        per_row=2,
    )
    if gpu_usable() and times.keys() >= {t("cost.gpu")}:
        from_n = gpu_from_n(result)
        never = t("cost.gpu_never")
        st.info(never if from_n is None else t("cost.gpu_from", n=from_n, limit=core.GPU_FROM_N))


def recorded_gpu_table() -> None:
    """Without a GPU here: what bench/gpu_timing.py measured on one."""
    st.caption(t("cost.no_gpu"))
    recorded = recorded_gpu()
    if recorded is None:
        return
    page = recorded["cost_page"]
    st.caption(
        t(
            "cost.recorded",
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
        column_config={t("cost.col_cpu"): milliseconds, t("cost.col_gpu"): milliseconds},
    )


def recorded_charts() -> bool:
    """Before anyone here pressed Measure: the charts of a measurement recorded on the app's
    reference machine, labelled as such (False when there is none)."""
    recorded = recorded_cost()
    if recorded is None:
        return False
    st.info(
        t(
            "cost.recorded_cpu",
            cores=recorded["cpu_cores"],
            date=recorded["date"],
            d_model=recorded["d_model"],
            heads=recorded["n_heads"],
        ),
        icon=":material/history:",
    )
    measured_charts(recorded["result"]["n"], recorded["result"], recorded["d_model"])
    return True


def recorded_table(measured: dict, t) -> pd.DataFrame:
    """n, CPU and GPU milliseconds and the GPU's speed-up, from a measure() result."""
    cpu, gpu = np.asarray(measured["attention"]), np.asarray(measured["gpu"])
    return pd.DataFrame(
        {
            "n": measured["n"],
            t("cost.col_cpu"): np.round(cpu * 1e3, 2),
            t("cost.col_gpu"): np.round(gpu * 1e3, 2),
            t("cost.col_ratio"): [
                "—" if np.isnan(ratio) else f"{ratio:.1f}×" for ratio in cpu / gpu
            ],
        }
    )
