"""The head gallery: every head's attention map as a small tile, on the prompt or on a random
sequence repeated, each head's measured scores in a table to sort and filter (a row clicked opens
its full map), and on the repeat the loss at each position of both copies."""

import numpy as np
import streamlit as st

from core.lessons.model_reading import LOCAL, SCORES
from ui.figures.heatmaps import A_heatmap
from ui.figures.lines import line_chart
from ui.figures.place import plot, plot_for_screens
from ui.figures.tiles import head_tiles
from ui.kit.choose import selectbox
from ui.kit.i18n import labeller, t
from ui.kit.number_box import number_box
from ui.kit.number_text import num
from ui.kit.tables import table
from ui.kit.url import decimal, told, url_choice
from ui.views.inside.names import head_name, layer_numbers, piece, row_names
from ui.work.reading_passes import repeat_of, scores_of, stream_pass

SEED = 0  # the repeated sequence's random pieces
SHOWN_ON_PROJECTOR = 8  # the table's first rows, printed large
BIND = {"bind": "query-params"}


def source(model, prompt_ids: tuple) -> tuple[tuple, int | None]:
    """The sequence the gallery reads, and the repeat's seed (None: the prompt)."""
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    with left:
        on = url_choice(
            st.segmented_control,
            t("inside.gallery_on"),
            ("repeat", "prompt"),
            "in_on",
            "repeat",
            format_func=labeller("inside.on"),
        )
    if on == "prompt":
        return prompt_ids, None
    seed = number_box(right, t("inside.seed"), 0, 999, SEED, "in_seed", **BIND)
    return repeat_of(model, seed).ids, seed


def _table(scores: dict, by: str, least: float, base: int, projector: bool) -> tuple[list, int]:
    """The heads whose ``by`` score is at least ``least``, highest first, as a table whose row a
    learner clicks: the (layer, head) pairs in its order, and the row picked. On a projector a
    printed table (the data grid's canvas stays at 13 px) and a picker under it."""
    L, h = scores[by].shape
    heads = sorted(
        ((i, j) for i in range(L) for j in range(h) if scores[by][i, j] >= least),
        key=lambda pair: -scores[by][pair],
    )
    columns = {t("inside.col_head"): [head_name(i, j, base) for i, j in heads]}
    for name in SCORES:
        columns[t(f"inside.score_{name}", local=LOCAL)] = [
            num(float(scores[name][pair]), 3) for pair in heads
        ]
    if projector:
        table({name: values[:SHOWN_ON_PROJECTOR] for name, values in columns.items()})
        names = columns[t("inside.col_head")]
        picked = selectbox(st, t("inside.full_map_of"), range(len(heads)), key="in_head_big",
                           format_func=names.__getitem__) if heads else 0  # fmt: skip
        return heads, int(picked or 0)
    st.dataframe(
        columns,
        hide_index=True,
        width="stretch",
        height=280,
        key="in_heads",
        on_select="rerun",
        selection_mode="single-row",
    )
    rows = st.session_state.get("in_heads", {}).get("selection", {}).get("rows", [])
    return heads, rows[0] if rows and rows[0] < len(heads) else 0


def section(model, prompt_ids: tuple, base: int, projector: bool = False) -> None:
    c = model.config
    ids, seed = source(model, prompt_ids)
    scores = scores_of(model, prompt_ids, seed)
    run = stream_pass(model, prompt_ids) if seed is None else repeat_of(model, seed)
    maps = run.A
    names = row_names(c.n_layers, base)[1:]
    maps = [list(a) for a in maps]
    numbers = layer_numbers(c.n_layers, base)  # across: the layers' numbers alone

    def tiles(across: bool):
        heads = [t("inside.head_short", head=j + base) for j in range(c.n_heads)]
        kind = "inside.tiles_title_across" if across else "inside.tiles_title"
        title = t(kind, first=numbers[0], last=numbers[-1])
        return head_tiles(maps, numbers if across else names, heads, title, across)

    plot_for_screens(tiles(True), lambda: tiles(False), "in_tiles")
    left, right = st.columns(2)
    with left:
        by = url_choice(
            st.selectbox,
            t("inside.sort_by"),
            SCORES,
            "in_sort",
            "induction",
            format_func={s: t(f"inside.score_{s}", local=LOCAL) for s in SCORES}.get,
        )
    with right:
        told("in_least", decimal(0.0, 1.0))
    least = right.slider(t("inside.at_least"), 0.0, 1.0, 0.0, 0.05, key="in_least", **BIND)
    heads, picked = _table(scores, by, float(least), base, projector)
    st.caption(t("inside.scores_note", local=LOCAL))
    if not heads:
        st.info(t("inside.no_heads"))
        return
    layer, head = heads[picked]
    pieces = [piece(model, i) for i in ids]
    plot(
        A_heatmap(
            np.asarray(maps[layer][head]),
            pieces,
            title=t("inside.full_map", head=head_name(layer, head, base)),
            decimals=2,
            sums=False,
        ),
        "in_full",
    )
    if seed is not None:
        _loss(repeat_of(model, seed), base)


def _loss(repeat, base: int) -> None:
    xs = list(range(base, len(repeat.loss) + base))
    second = len(repeat.loss) // 2 + base + 0.5  # between the copies
    plot(
        line_chart(
            xs,
            {t("inside.loss"): repeat.loss},
            title=t("inside.loss_title"),
            x_title=t("inside.x_position", base=base),
            y_title="",  # the title says what is measured
            log=False,
            tick_every_x=False,
            marks=((second, t("inside.second_starts")),),
        ),
        "in_loss",
    )
    st.success(
        t(
            "inside.loss_drop",
            first=num(repeat.first, 2),
            second=num(repeat.second, 2),
            drop=num(repeat.first - repeat.second, 2),
        ),
        icon=":material/lightbulb:",
    )
