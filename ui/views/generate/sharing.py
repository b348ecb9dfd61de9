"""How the heads share K and V, with the installed decoders' real numbers (core/lessons/
kv_sharing.py): each model's layer as it is beside the same layer with one K/V head per query head
and with one for all, what the cache keeps per token and at 512 tokens, and which query heads read
which K/V head, on the chosen model's real maps; then the prompt cut by each model's tokenizer:
Gemma's SentencePiece words against SmolLM2's byte-level pieces, and what that costs in
positions."""

import numpy as np
import streamlit as st

import core
from core.lessons.kv_sharing import sharing_of, three_ways
from ui.figures.heatmaps import A_heatmap
from ui.figures.place import grid
from ui.kit.i18n import current_lang, t
from ui.kit.number_text import byte_size, indices, shown_index
from ui.kit.shared_cache import shared
from ui.kit.tables import table
from ui.views.generate.next_token import label, partial_bytes
from ui.work.decoding import decoder, prompt_for_writing

AT = 512  # tokens: the cache's size at this length
NAMES = {"gemma3-270m": "Gemma 3 270M", "smollm2-135m": "SmolLM2-135M"}


def _facts(model, name: str):
    """A model's facts: the loaded one's own config, the other's read from its GGUF's header
    (a class on Gemma never parses Gemma's metadata again: its vocabulary alone is 262,144
    strings)."""
    return model.config if name == model.name else core.decoder_facts(name)


def section(model, text: str, ids: tuple, view: tuple, base: int, decimals: int) -> None:
    """The ways side by side, the groups, the chosen model's real map (``view``'s layer), and
    the prompt ``text`` under each tokenizer."""
    models = core.decoder_names()
    rows = {key: [] for key in ("model", "way", "q", "kv", "token", "at", "saved")}
    for name in models:
        facts = _facts(model, name)
        own = sharing_of(facts)
        for way in three_ways(facts):
            mark = t("generate.kv_own") if way == own else ""
            rows["model"].append(NAMES[name])
            rows["way"].append(t(f"generate.kv_way_{way.way.replace('-', '_')}") + mark)
            rows["q"].append(str(way.n_heads))
            rows["kv"].append(str(way.n_kv_heads))
            rows["token"].append(byte_size(way.per_token))
            rows["at"].append(byte_size(way.at(AT)))
            rows["saved"].append("1" if way.saved == 1 else f"1/{way.saved}")
    table({t(f"generate.kv_col_{key}", at=AT): column for key, column in rows.items()})
    for name in models:
        own = sharing_of(_facts(model, name))
        groups = t("generate.group_sep").join(
            t("generate.kv_readers", kv=kv + base, heads=t("shell.list_sep").join(
                indices(own.n_heads, base)[j] for j in heads))
            for kv, heads in enumerate(own.readers())
        )  # fmt: skip
        st.caption(t("generate.kv_groups", model=NAMES[name], groups=groups))
    group_maps(model, ids, view[0], base, decimals)
    if len(models) > 1:
        _tokenizers(text, models)


def _tokenizers(text: str, models) -> None:
    """The prompt cut by each model: its pieces, a byte-level piece that is no whole character
    shown as its bytes (E4 BB)."""
    columns, counts = {}, []
    for name in models:
        tokenizer = core.decoder_tokenizer(name)
        ids = tokenizer.encode(text)
        ids = ids[1:] if ids and ids[0] == tokenizer.bos else ids  # the text's own pieces
        columns[NAMES[name]] = " · ".join(_shown(tokenizer, i) for i in ids)
        counts.append(t("generate.kv_positions", model=NAMES[name], n=len(ids)))
    st.markdown(t("generate.tokenizers_text"))
    table(
        {t("generate.kv_col_model"): list(columns), t("generate.col_piece"): list(columns.values())}
    )
    st.caption(t("generate.group_sep").join(counts))


def _shown(tokenizer, i: int) -> str:
    if hasattr(tokenizer, "piece_bytes"):  # byte-level: a piece's bytes, as text where they are
        return partial_bytes(tokenizer, i) or tokenizer.piece_bytes(i).decode().replace(" ", "␣")
    return tokenizer.vocabulary[i].replace("▁", "␣")


@shared(max_entries=32)
def _group_figures(name: str, ids: tuple, layer: int, base: int, decimals: int, lang: str) -> list:
    """Each K/V head's row of maps, built once for a class on the same prompt and layer (four
    to nine heatmaps: a class's /generate learners would each build them every run)."""
    model = decoder(name)
    A = prompt_for_writing(model, ids).A[layer]  # [h, n, n]: each query head's own map
    pieces = [label(model, i) for i in ids]
    future = np.triu(np.ones((len(ids), len(ids)), dtype=bool), 1)
    rows = []
    for kv, heads in enumerate(sharing_of(model.config).readers()):
        named = {"kv": shown_index(kv, base)}
        rows.append([
            (A_heatmap(A[h], pieces, title=t("generate.kv_map_title", lang,
                                             head=shown_index(h, base), **named),
                       decimals=decimals, forbidden=future, sums=False), f"gen_kv_map_{h}")
            for h in heads
        ])  # fmt: skip
    return rows


def group_maps(model, ids: tuple, layer: int, base: int, decimals: int) -> None:
    """The chosen layer's query heads on the prompt, a row per K/V head: the heads of one row
    read the same K and V, and differ only by their own q (the mask's future cells grey)."""
    c = model.config
    words = {"model": NAMES[model.name], "layer": shown_index(layer, base), "g": c.group}
    st.markdown(t("generate.kv_map_text", **words))
    rows = _group_figures(model.name, tuple(ids), layer, base, decimals, current_lang())
    for figures in rows:
        grid(figures, per_row=len(figures))
