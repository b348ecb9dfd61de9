"""Inside the model: training against generation on the prompt, one layer and head's attention
with its window, and how this real layer differs from the walkthrough's textbook one."""

import math

import numpy as np
import streamlit as st

from core.lessons import decoder_parts
from core.pretrained.gemma import allowed
from ui.figures.heatmaps import A_heatmap
from ui.figures.place import plot
from ui.kit.escape import markdown_text
from ui.kit.i18n import t
from ui.kit.number_text import (
    byte_size,
    indices,
    num,
    one_in,
    power_of_ten,
    shown_index,
    unbroken,
)
from ui.kit.tables import table
from ui.views.generate.next_token import label, probability_text
from ui.work.decoding import decoder, prompt_for_writing


def training(model, ids: tuple, decimals: int, base: int) -> None:
    st.markdown(t("generate.train_text"))
    seen = prompt_for_writing(model, ids)
    n = len(seen.target_p)
    if n == 0:
        return
    rows = {
        t("generate.col_position"): indices(n, base),
        t("generate.col_input"): [unbroken(label(model, i)) for i in ids[:n]],  # "E4 BB" whole
        t("generate.col_target"): [unbroken(label(model, i)) for i in ids[1 : n + 1]],
        t("generate.col_p_pass"): [probability_text(p) for p in seen.target_p],
        t("generate.col_p_cached"): [probability_text(p) for p in seen.target_p_cached],
    }
    table(rows)
    loss = float(-np.log(np.maximum(seen.target_p, 1e-30)).mean())
    st.markdown(t("generate.loss", n=n, loss=num(loss, 3), diff=power_of_ten(float(seen.max_diff))))


def attention_map(model, ids: tuple, view: tuple, decimals: int, base: int) -> None:
    layer, head = view
    c = model.config
    A = prompt_for_writing(model, ids).A[layer]  # [h, n, n]
    positions = np.arange(A.shape[1])
    hidden = ~allowed(positions, positions, c.window if c.is_local(layer) else None)
    pieces = [label(model, i) for i in ids]
    L, H = shown_index(layer, base), shown_index(head, base)
    title = t("generate.map_title", layer=L, head=H)
    plot(A_heatmap(A[head], pieces, title=title, decimals=decimals, forbidden=hidden), "gen_map")
    if c.window is None:  # no local layers (SmolLM2): not "global" as against a local kind
        key = "generate.map_every_layer"
    else:
        key = "generate.map_local" if c.is_local(layer) else "generate.map_global"
    st.caption(t(key, layer=L, window=c.window, local=c.global_every - 1))
    sinks = t("shell.list_sep").join(
        t("generate.head_weight", head=shown_index(h, base), weight=num(float(w), 2))
        for h, w in enumerate(mean_on_first(A))
    )
    first = unbroken(label(model, ids[0]))  # Gemma's <bos>; SmolLM2 adds none
    st.caption(markdown_text(t("generate.sink", layer=L, sinks=sinks, first=first, at=base)))


# The two computations below are made once per model and prompt and shared, as the model's
# passes are (ui/work/decoding.py): each is a few products with a layer's weights, and OpenBLAS's
# threads spin on the other core after each one, ~45 ms of CPU a rerun of this page (issue 24).
@st.cache_resource(max_entries=16, show_spinner=False)
def _rope_scores(name: str, ids: tuple, shift: int) -> tuple[float, float]:
    return decoder_parts.rope_scores(decoder(name), ids, shift)


@st.cache_resource(max_entries=16, show_spinner=False)
def _norms(name: str, token: int) -> tuple:
    return decoder_parts.norms(decoder(name), token)


def _sharing(model, base: int) -> tuple[str, str]:
    """The title and text of how this model's query heads share K and V, in its numbers."""
    c = model.config
    sizes = {"d": c.d_model, "h": c.n_heads, "hd": c.head_dim, "kv": c.n_kv_heads,
             "q_cols": c.n_heads * c.head_dim, "kv_cols": c.n_kv_heads * c.head_dim,
             "saved": c.group, "g": c.group, "one_in": one_in(c.group)}  # fmt: skip
    if c.n_kv_heads == 1:
        title, text = t("generate.mqa_title", **sizes), t("generate.mqa_text", **sizes)
    else:
        first = f"{shown_index(0, base)}–{shown_index(c.group - 1, base)}"
        group = {"first": first, "kv_first": shown_index(0, base)}
        title, text = t("generate.gqa_title", **sizes), t("generate.gqa_text", **sizes, **group)
    if c.n_heads * c.head_dim != c.d_model:
        text += t("generate.split_note", **sizes)
    return title, text


def differences(model, ids: tuple, decimals: int, base: int) -> None:
    c, name = model.config, model.name
    with st.expander(t("generate.rope_title")):
        if len(ids) >= 3:
            s1, s2 = _rope_scores(name, ids, 40)
            i, j = len(ids) - 1, len(ids) - 2
            names = {"a": markdown_text(label(model, ids[-1])),
                     "b": markdown_text(label(model, ids[-2]))}  # fmt: skip
            at = {"i": i + base, "j": j + base, "i2": i + 40 + base, "j2": j + 40 + base}
            st.markdown(t("generate.rope_text", **names, **at, s1=num(s1, 4), s2=num(s2, 4)))
    title, text = _sharing(model, base)
    with st.expander(title):
        st.markdown(text)
    x_mean, x_rms, q_before, q_after = _norms(name, ids[-1])
    numbers = {"mean": num(x_mean, 3), "rms": num(x_rms, 3), "q_before": num(q_before, 2),
               "layer": shown_index(0, base)}  # fmt: skip
    plain = "" if c.qk_norm else "_plain"
    with st.expander(t(f"generate.norm_title{plain}")):
        after = {} if q_after is None else {"q_after": num(q_after, 2)}
        st.markdown(t(f"generate.norm_text{plain}", **numbers, **after))
    glu, act = ("GeGLU", "GELU") if c.activation.startswith("gelu") else ("SwiGLU", "SiLU")
    with st.expander(t("generate.ffn_title", glu=glu)):
        st.markdown(t("generate.ffn_text", act=act, d_ff=f"{c.d_ff:,}"))
    with st.expander(t("generate.scale_title")):
        root = num(math.sqrt(c.head_dim), 2).rstrip("0").rstrip(".")
        st.markdown(t("generate.scale_text", hd=c.head_dim, root=root))
    sizes = {"vocab": f"{model.E.shape[0]:,}", "d": c.d_model, "size": byte_size(model.E.nbytes)}
    if model.head is not None:
        with st.expander(t("generate.head_title")):
            st.markdown(t("generate.head_text", **sizes))
    else:
        with st.expander(t("generate.tied_title")):
            st.markdown(
                t("generate.tied_text" if c.embed_scale else "generate.tied_text_plain", **sizes)
            )


def mean_on_first(A: np.ndarray) -> np.ndarray:
    """Each head's mean weight on position 0 (<bos>) over the queries after it: [h]."""
    return A[:, 1:, 0].mean(axis=1) if A.shape[1] > 1 else A[:, :, 0].mean(axis=1)
