"""How the heads share K and V, with the installed decoders' real numbers (core/lessons/
kv_sharing.py): each model's layer as it is beside the same layer with one K/V head per query head
and with one for all, what the cache keeps per token and at 512 tokens (in binary units, said so),
and which query heads read which K/V head, on the chosen model's real weights: every query head's
weights for the last token, in a band per K/V head, in the layer where the heads of a group differ
most on the prompt; then the prompt cut by each model's tokenizer: Gemma's SentencePiece words
against SmolLM2's byte-level pieces, and what that costs in positions. Every model's name is the
registry's (core.decoder_entry(name).display)."""

import numpy as np
import streamlit as st

import core
from core.lessons.kv_sharing import most_different_layer, sharing_of, three_ways
from ui.figures.groups import kv_groups
from ui.figures.palette import TICK_PX
from ui.figures.place import BIG_TEXT_PX, plot
from ui.kit.i18n import current_lang, t
from ui.kit.number_text import byte_size, indices, shown_index, unbroken
from ui.kit.settings import BY_URL
from ui.kit.shared_cache import shared
from ui.kit.tables import table
from ui.views.generate.next_token import label
from ui.views.generate.piece_rows import visible
from ui.views.trained import PHONE_PX
from ui.work.decoding import decoder, prompt_for_writing

AT = 512  # tokens: the cache's size at this length


def _display(name: str) -> str:
    return core.decoder_entry(name).display


def _facts(model, name: str):
    """A model's facts: the loaded one's own config, the other's read from its GGUF's header
    (a class on Gemma never parses Gemma's metadata again: its vocabulary alone is 262,144
    strings)."""
    return model.config if name == model.name else core.decoder_facts(name)


def section(model, text: str, ids: tuple, _view: tuple, base: int, decimals: int) -> None:
    """The ways side by side, the groups, the chosen model's real weights and the prompt ``text``
    under each tokenizer. (``_view``, the page's layer and head, is not this section's: its map
    takes the layer where the groups can be seen.)"""
    models = core.decoder_names()
    rows = {key: [] for key in ("model", "way", "q", "kv", "token", "at", "saved")}
    for name in models:
        facts = _facts(model, name)
        own = sharing_of(facts)
        for way in three_ways(facts):
            mark = t("generate.kv_own") if way == own else ""
            rows["model"].append(_display(name))
            rows["way"].append(t(f"generate.kv_way_{way.way.replace('-', '_')}") + mark)
            rows["q"].append(str(way.n_heads))
            rows["kv"].append(str(way.n_kv_heads))
            rows["token"].append(byte_size(way.per_token))
            rows["at"].append(byte_size(way.at(AT)))
            rows["saved"].append("1" if way.saved == 1 else f"1/{way.saved}")
    table({t(f"generate.kv_col_{key}", at=AT): column for key, column in rows.items()})
    st.caption(t("shell.size_binary"))
    for name in models:
        own = sharing_of(_facts(model, name))
        groups = t("generate.group_sep").join(
            t("generate.kv_readers", kv=kv + base, heads=t("shell.list_sep").join(
                indices(own.n_heads, base)[j] for j in heads))
            for kv, heads in enumerate(own.readers())
        )  # fmt: skip
        st.caption(t("generate.kv_groups", model=_display(name), groups=groups))
    group_maps(model, ids, base, decimals)
    if len(models) > 1:
        _tokenizers(text, models)


def _tokenizers(text: str, models) -> None:
    """The prompt cut by each model: its pieces as every surface labels them (a piece that is
    part of a character as its bytes, E4 BB, held on one line; a space as ␣), the line breaking
    only between pieces."""
    columns, counts = {}, []
    for name in models:
        tokenizer = core.decoder_tokenizer(name)
        ids = tokenizer.encode(text)
        ids = ids[1:] if ids and ids[0] == tokenizer.bos else ids  # the text's own pieces
        columns[_display(name)] = " · ".join(unbroken(visible(tokenizer, i)) for i in ids)
        bos = core.decoder_entry(name).pieces.bos  # the piece the model puts first, or none
        key = "generate.kv_positions" if bos else "generate.kv_positions_no_bos"
        counts.append(t(key, model=_display(name), n=len(ids), bos=bos or ""))
    st.markdown(t("generate.tokenizers_text"))
    table(
        {t("generate.kv_col_model"): list(columns), t("generate.col_piece"): list(columns.values())}
    )
    st.caption(t("generate.group_sep").join(counts))


def last_rows(model, ids: tuple) -> np.ndarray:
    """[layers, query heads, keys]: every layer's and head's weights for the prompt's last
    token, from the prompt's one pass."""
    A = prompt_for_writing(model, ids).A  # per layer [h, n, n]
    return np.stack([core.to_numpy(layer)[:, -1, :] for layer in A]).astype(np.float64)


@shared(max_entries=32)
def _group_figure(name: str, ids: tuple, base: int, decimals: int, lang: str, big: bool):
    """The layer where the groups differ most, and its figure: built once for a class on the
    same prompt (a class's /generate learners would each build it every run)."""
    model = decoder(name)
    c = model.config
    rows = last_rows(model, ids)
    layer = most_different_layer(rows, c.n_kv_heads)
    heads = [shown_index(h, base) for h in range(c.n_heads)]
    kv = [shown_index(h // c.group, base) for h in range(c.n_heads)]
    labels = (
        tuple(heads),
        tuple(label(model, i) for i in ids),
        tuple(t("generate.kv_band", lang, kv=shown_index(g, base)) for g in range(c.n_kv_heads)),
        tuple(t("generate.kv_row", lang, head=h, kv=g) for h, g in zip(heads, kv)),
    )
    titles = (t("generate.kv_axis_q", lang), t("projections.axis_key", lang))
    title = t("generate.kv_map_title", lang, layer=shown_index(layer, base))
    figure = kv_groups(rows[layer], c.n_kv_heads, labels, title=title, decimals=decimals,
                       titles=titles, phone_px=PHONE_PX,
                       label_px=BIG_TEXT_PX if big else TICK_PX)  # fmt: skip
    return layer, figure


def group_maps(model, ids: tuple, base: int, decimals: int) -> None:
    """Every query head's weights for the last token, a row per head in a band per K/V head,
    in the layer where the heads of a group weigh the keys most differently: the heads of a band
    read the same K and V, and differ only by their own q."""
    c = model.config
    big = bool(st.session_state.get(BY_URL["big"].state_key))  # a projector's larger names
    layer, figure = _group_figure(model.name, tuple(ids), base, decimals, current_lang(), big)
    words = {"model": _display(model.name), "layer": shown_index(layer, base), "g": c.group,
             "layers": c.n_layers}  # fmt: skip
    st.markdown(t("generate.kv_map_text", **words))
    plot(figure, "gen_kv_groups")
