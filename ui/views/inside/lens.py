"""The logit lens: the prompt (the model's presets), every layer's five most likely pieces at the
last position, the answer's rank and probability through the layers, and the map of each layer's
first piece over the last positions."""

import numpy as np
import streamlit as st

import core
from core.lessons.model_reading import Lens
from ui.figures.heatmaps import piece_map
from ui.figures.lines import line_chart
from ui.figures.place import grid, plot_for_screens
from ui.kit.escape import markdown_text
from ui.kit.i18n import t
from ui.kit.number_text import NBSP, num, unbroken
from ui.kit.session import INSIDE_RANKS
from ui.kit.tables import table
from ui.views.inside.names import piece, row_names, stream_ticks
from ui.work.reading_passes import lens_of

KEY = "in_prompt"
PHONE_POSITIONS = 4  # the lens map's columns on a phone


def _use(text: str) -> None:
    st.session_state[KEY] = text


def prompt_box(model, lang: str) -> str:
    """The model's presets (its registry row's: prompts that teach on it), one click each, above
    the prompt's box (kept in the URL); the box opens on the model's prompt for the page's
    language. A model with none offers none."""
    row = core.decoder_entry(model.name)
    columns = st.columns(len(row.presets)) if row.presets else []
    for column, preset in zip(columns, row.presets, strict=True):
        column.button(
            t(f"inside.preset_{preset.code}"),
            key=f"in_preset_{preset.code}",
            on_click=_use,
            args=(preset.text,),
            width="stretch",
        )
    text = st.text_area(
        t("inside.prompt"),
        value=row.first_prompt(lang),
        key=KEY,
        height=80,
        help=t("inside.prompt_help"),
        bind="query-params",
    )
    if row.mostly_english:  # said plainly: its presets are English, and what Chinese does
        st.caption(t("inside.mostly_english", model=row.display))
    return text


def story(model, lens: Lens, base: int) -> str:
    """Which layer first has the answer in its top 5, which first puts it first, and what the
    layers just before put first, a run of layers per piece: "layers 25–26 put «␣» first, layers
    27–28 «␣red»" (not "«␣ / red»", which hid which layer put which)."""
    names = row_names(model.config.n_layers, base)
    answer = markdown_text(piece(model, lens.answer))
    top5 = int(np.argmax(lens.rank <= 5))
    top1 = int(np.argmax(lens.rank == 1))
    before = range(max(1, top1 - 4), top1)  # the (up to) four layers before it
    if len(before) == 0:
        return t("inside.lens_story_short", answer=answer, top5=names[top5], top1=names[top1])
    runs = []  # [first row, last row, the piece they put first]
    for i in before:
        first = int(lens.top_ids[i, 0])
        if runs and runs[-1][2] == first:
            runs[-1][1] = i
        else:
            runs.append([i, i, first])
    firsts = t("inside.lens_sep").join(
        t("inside.lens_then" if k else "inside.lens_first",
          layers=_rows(names, start, end, base), piece=markdown_text(piece(model, first)))
        for k, (start, end, first) in enumerate(runs)
    )  # fmt: skip
    kind = "inside.lens_story_same" if top5 == top1 else "inside.lens_story"
    return t(kind, answer=answer, top5=names[top5], top1=names[top1], firsts=firsts)


def _rows(names: list[str], start: int, end: int, base: int) -> str:
    """Stream rows ``start`` … ``end`` (row i: after layer i − 1 in code) as the page names
    them: "layer 26", or "layers 25–26"."""
    if start == end:
        return names[start]
    return t("inside.layers_range", first=start - 1 + base, last=end - 1 + base)


def section(model, ids: tuple, base: int) -> Lens:
    lens = lens_of(model, ids)
    names = row_names(model.config.n_layers, base)
    st.success(story(model, lens, base), icon=":material/lightbulb:")
    columns = {t("inside.col_row"): [unbroken(name) for name in names]}  # "layer 30" whole
    for k in range(lens.top_ids.shape[1]):
        columns[t("inside.col_top", nth=k + 1)] = [
            f"\u2068{unbroken(piece(model, int(i)))}\u2069{NBSP}{NBSP}{num(float(p), 3)}"
            # a right-to-left piece (Arabic) isolated: its cell keeps the piece first and the
            # number after it; non-breaking spaces: a phone's narrow cell never splits the piece
            # from its p ("and / 0.043"), the table scrolls sideways instead
            for i, p in zip(lens.top_ids[:, k], lens.top_p[:, k], strict=True)
        ]
    table(columns)  # every layer's row, on a projector too
    answer = piece(model, lens.answer)
    st.session_state[INSIDE_RANKS] = (answer, tuple(int(r) for r in lens.rank))  # a room asks
    xs, ticks = list(range(len(names))), stream_ticks(model.config.n_layers, base)
    rank = line_chart(
        xs,
        {answer: lens.rank},
        title=t("inside.rank_title", answer=answer),
        x_title=t("inside.x_layer"),
        y_title="",  # the title says what is measured: no sideways axis title
        log=False,
        log_y=True,
        x_labels=ticks,
    )
    p = line_chart(
        xs,
        {answer: lens.p},
        title=t("inside.p_title", answer=answer),
        x_title=t("inside.x_layer"),
        y_title="",
        log=False,
        y_range=(0, 1),
        x_labels=ticks,
    )
    grid([(rank, "in_rank"), (p, "in_p")], per_row=2)
    st.caption(t("inside.x_note", first=base, last=model.config.n_layers - 1 + base))
    _map(model, ids, lens, names, base)
    return lens


def _map(model, ids: tuple, lens: Lens, names: list[str], base: int) -> None:
    """The map of each row's first piece at the last positions: PHONE_POSITIONS of them on a
    phone, where eight columns of words would shrink below reading size."""
    pieces = [[piece(model, int(i)) for i in row] for row in lens.map_ids]
    positions = [
        f"{lens.map_from + j + base}·{piece(model, ids[lens.map_from + j])}"
        for j in range(lens.map_ids.shape[1])
    ]

    def last(k: int):
        rows = [row[-k:] for row in pieces]
        title = t("inside.map_title")
        return piece_map(rows, lens.map_p[:, -k:], names, positions[-k:], title, "p")

    plot_for_screens(last(len(positions)), lambda: last(PHONE_POSITIONS), "in_map")
    vocab = f"{model.E.shape[0]:,}"
    st.caption(
        t("inside.map_note", m=len(positions), m_phone=PHONE_POSITIONS, base=base, vocab=vocab)
    )
