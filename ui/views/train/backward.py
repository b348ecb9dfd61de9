"""One backward pass opened up: the fixed sequence's gradient at step 0 through one head of the
last layer, each matrix beside its formula (dO → dA → dS → dQ, dK → dW_Q, dW_K), and one row of
the softmax's gradient worked out in numbers, as the walkthrough works out a forward row."""

import math

import numpy as np
import streamlit as st

from core import tiny
from scheduling.training import Settings
from ui.figures.heatmaps import heatmap
from ui.figures.place import grid
from ui.kit.choose import selectbox
from ui.kit.i18n import t
from ui.kit.number_text import indices, num, power_of_ten
from ui.kit.tables import table
from ui.views.train.curves import head_name

SHOWN_KEYS = 8  # the row worked out: its keys with the largest |dS|


@st.cache_data(max_entries=16, show_spinner=False)
def _trace(settings: Settings):
    task = tiny.TASKS[settings.task]
    params = tiny.init(settings.seed, task.vocab, task.n, settings.d_model, settings.n_heads,
                       settings.n_layers)  # fmt: skip
    probe = tiny.probe(task)
    return tiny.backward_trace(params, probe.tokens, settings.n_heads, True, probe.targets)


def _scaled(M) -> tuple[np.ndarray, int]:
    """M times 10^k, k the power that brings its largest entry to between 1 and 10."""
    top = float(np.abs(M).max())
    k = 0 if top == 0 else -math.floor(math.log10(top))
    return np.asarray(M) * 10.0**k, k


def _figure(M, rows, cols, key: str):
    values, k = _scaled(M)
    title = t(f"train.{key}") + (f"  (× {power_of_ten(10.0**-k)})" if k else "")
    return heatmap(values, rows, cols, title=title, decimals=1, scale="signed"), f"tr_{key}"


def section(settings: Settings, base: int) -> None:
    last = settings.n_layers - 1
    heads = list(range(settings.n_heads))
    names = {j: head_name(last, j, base) for j in heads}  # named now: in this run's language
    head = selectbox(st, t("train.backward_head"), heads, key="tr_bw_head", format_func=names.get)
    st.caption(t("train.backward_text", head=head_name(last, head, base)))
    trace = _trace(settings)
    g = trace.layers[last]
    d_head = settings.d_model // settings.n_heads
    columns = slice(head * d_head, (head + 1) * d_head)
    n = g.dA.shape[-1]
    positions, dims = indices(n, base), indices(d_head, base)
    model_dims = indices(settings.d_model, base)
    grid([
        _figure(g.dO[head], positions, dims, "dO"),
        _figure(g.dA[head], positions, positions, "dA"),
        _figure(g.dS[head], positions, positions, "dS"),
        _figure(g.dQ[head], positions, dims, "dQ"),
        _figure(g.dK[head], positions, dims, "dK"),
        _figure(g.dW_Q[:, columns], model_dims, dims, "dW_Q"),
        _figure(g.dW_K[:, columns], model_dims, dims, "dW_K"),
    ], per_row=2)  # fmt: skip
    _row(trace, last, head, d_head, base)


def _row(trace, layer: int, head: int, d_head: int, base: int) -> None:
    """The query row of dS with the most gradient (the last position predicts nothing: its row
    is 0), from its a and dA, for its keys of largest |dS|."""
    A = trace.forward.layers[layer].A[0, head]
    g = trace.layers[layer]
    i = int(np.argmax(np.abs(g.dS[head]).sum(axis=-1)))
    a, dA, dS = A[i], g.dA[head, i], g.dS[head, i]
    dot = float(a @ dA)
    st.markdown(f"**{t('train.row_title', row=i + base)}**")
    st.caption(t("train.row_text", dot=power_of_ten(dot, 3), root=num(math.sqrt(d_head), 2)))
    keys = np.argsort(-np.abs(dS))[:SHOWN_KEYS]
    table({
        t("train.col_key"): [str(j + base) for j in keys],
        "aᵢⱼ": [num(float(a[j]), 4) for j in keys],
        "dAᵢⱼ": [power_of_ten(float(dA[j]), 3) for j in keys],
        "dAᵢⱼ − Σ": [power_of_ten(float(dA[j]) - dot, 3) for j in keys],
        "dSᵢⱼ": [power_of_ten(float(dS[j]), 3) for j in keys],
    })  # fmt: skip
    st.caption(t("train.row_sum", total=power_of_ten(float(dS.sum()), 2)))
