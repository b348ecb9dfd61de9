"""The scaling page: the variance experiment, the order that scaling keeps, weights as relative
shares, and how sharp the softmax gets and what that does to its gradient."""

import math

import numpy as np
import streamlit as st

from core.lessons import scaling
from core.softmax import softmax_rows
from ui.figures.lines import histograms, line_chart
from ui.figures.place import grid, plot
from ui.kit.i18n import t
from ui.kit.number_text import num, shown_index
from ui.kit.tables import table
from ui.work.traces import SCALING_D_K, dot_product_samples, sharpness_curves

UNSCALED = "#D55E00"  # Okabe-Ito vermillion: "without scaling" in every chart of the page
SCALED = "#0072B2"  # Okabe-Ito blue: "with ÷√d_k"
N_KEYS = 16  # keys per row in the sharpness experiment
EXAMPLE_KEYS = 6  # keys in the worked row
SHIFT = 5.0  # added to every score to show that only differences matter


def variance_experiment(decimals: int) -> int:
    """The d_k and sample sliders, the two histograms and the measured variances; returns d_k."""
    left, right = st.columns(2)
    d_k = left.select_slider(t("scaling.d_k"), SCALING_D_K, value=64, key="sc_d_k")
    samples = right.select_slider(
        t("scaling.samples"), (1000, 5000, 20000, 50000), value=20000, key="sc_samples"
    )
    s = dot_product_samples(d_k, samples)
    raw, scaled = float(s.var()), float((s / math.sqrt(d_k)).var())
    series = {
        t("scaling.hist_raw", var=num(raw, decimals)): s,
        t("scaling.hist_scaled", var=num(scaled, decimals)): s / math.sqrt(d_k),
    }
    figure = histograms(
        series,
        title=t("scaling.hist_title"),
        x_title=t("scaling.score_axis"),
        colours=(UNSCALED, SCALED),
    )  # the lines' colours
    plot(figure, "sc_hist")
    raw_text, scaled_text = num(raw, decimals), num(scaled, decimals)
    st.success(t("scaling.measured", samples=samples, d_k=d_k, raw=raw_text, scaled=scaled_text))
    return d_k


def order_kept(d_k: int, base: int, decimals: int) -> None:
    """One random row before and after ÷√d_k: the same ranking, different sharpness."""
    st.subheader(t("scaling.order_title"))
    st.markdown(t("scaling.order_text"))
    raw = scaling.score_row(d_k, EXAMPLE_KEYS, seed=d_k)
    scaled = raw / math.sqrt(d_k)
    w_raw, w_scaled = softmax_rows(raw), softmax_rows(scaled)
    order = np.argsort(-raw, kind="stable")
    rank = np.empty(EXAMPLE_KEYS, dtype=int)
    rank[order] = np.arange(EXAMPLE_KEYS)
    keys = [shown_index(j, base) for j in range(EXAMPLE_KEYS)]
    st.markdown(t("scaling.order_example", n=EXAMPLE_KEYS, d_k=d_k))
    table({
        t("scaling.col_key"): [*keys, t("scaling.sum_row")],
        t("scaling.col_raw"): [*(num(v, decimals) for v in raw), ""],
        t("scaling.col_scaled"): [*(num(v, decimals) for v in scaled), ""],
        t("scaling.col_rank"): [*(str(r + 1) for r in rank), ""],
        t("scaling.col_w_raw"): [num(v, decimals) for v in (*w_raw, w_raw.sum())],
        t("scaling.col_w_scaled"): [num(v, decimals) for v in (*w_scaled, w_scaled.sum())],
    })  # fmt: skip
    best = int(order[0])
    st.markdown(
        t(
            "scaling.order_same",
            order=" > ".join(keys[j] for j in order),
            best=keys[best],
            w_raw=num(w_raw[best], decimals),
            w_scaled=num(w_scaled[best], decimals),
        )
    )
    relative(scaled, keys, decimals)


def relative(scaled: np.ndarray, keys: list[str], decimals: int) -> None:
    """Weights are shares of one row: a shift changes nothing, dropping a key changes all."""
    st.subheader(t("scaling.relative_title"))
    weights = softmax_rows(scaled)
    change = np.abs(softmax_rows(scaled + SHIFT) - weights).max()
    best = int(np.argmax(scaled))
    rest = np.delete(np.arange(len(scaled)), best)
    without = softmax_rows(scaled[rest])
    second = int(rest[np.argmax(without)])
    st.markdown(
        t(
            "scaling.relative_text",
            shift=num(SHIFT, decimals),
            change=num(change, decimals),
            best=keys[best],
            second=keys[second],
            before=num(weights[second], decimals),
            after=num(without[np.argmax(without)], decimals),
        )
    )


def _lines(curves, column: int, y_title: str, key: str):
    series = {
        t("scaling.without"): [c[column] for c in curves[False]],
        t("scaling.with"): [c[column] for c in curves[True]],
    }
    figure = line_chart(
        SCALING_D_K, series, title=y_title, x_title="d_k", y_title=y_title, log_y=False,
        colours=(UNSCALED, SCALED),
    )  # fmt: skip
    return figure, key


def sharpness() -> dict:
    """The largest weight and the entropy against d_k; returns the curves."""
    st.subheader(t("scaling.sharp_title", n=N_KEYS))
    st.markdown(t("scaling.sharp_text"))
    curves = sharpness_curves(N_KEYS)
    grid(
        [
            _lines(curves, 0, t("scaling.max_weight"), "sc_max"),
            _lines(curves, 1, t("scaling.entropy"), "sc_entropy"),
        ],
        per_row=2,
    )
    return curves


def gradient(curves: dict, decimals: int) -> None:
    """The gradient against d_k, and why the unscaled line starts above the scaled one."""
    st.subheader(t("scaling.grad_title"))
    st.markdown(t("scaling.grad_text"))
    grid([_lines(curves, 2, t("scaling.gradient"), "sc_grad")], per_row=2)
    st.markdown(f"**{t('scaling.grad_why_title')}**")
    st.markdown(gradient_note(curves, decimals))
    st.caption(t("scaling.grad_chain"))


def gradient_note(curves: dict, decimals: int) -> str:
    """The note's numbers, all read from the curves and the exact Jacobians it quotes."""
    unscaled, scaled = ([c[2] for c in curves[flag]] for flag in (False, True))
    larger = scaling.unscaled_gradient_larger(SCALING_D_K, unscaled, scaled)
    if not larger:
        return t("scaling.grad_why_none")
    high = max(larger)
    cross = next((d for d in SCALING_D_K if d > high), high)
    even = scaling.jacobian_size(np.full(N_KEYS, 1 / N_KEYS))
    two = scaling.jacobian_size(np.eye(N_KEYS)[:2].mean(axis=0))
    return t(
        "scaling.grad_why",
        low=min(larger),
        high=high,
        cross=cross,
        n=N_KEYS,
        even=num(even, decimals),
        two=num(two, decimals),
        level=num(float(np.mean(scaled)), decimals),
        spread=num(math.sqrt(high), decimals),
    )
