"""Switching heads off: any set of heads, each one's output zeroed before W_O, and what changes:
the next token's bars, the repeat's loss on both copies, and the answer's rank through the
layers. One click turns off the strongest induction heads, another as many heads at random."""

import numpy as np
import streamlit as st

from core.softmax import softmax_rows
from ui.figures.bars import probability_bars
from ui.figures.lines import line_chart
from ui.figures.place import grid, plot
from ui.kit.escape import markdown_text
from ui.kit.i18n import t
from ui.kit.number_text import num
from ui.kit.tables import table
from ui.kit.url import keep_in_url, told
from ui.views.inside.gallery import SEED
from ui.views.inside.names import from_code, head_code, head_name, piece, row_names, stream_ticks
from ui.work.reading_passes import lens_of, repeat_of, scores_of, stream_pass

KEY = "in_off"
TOP_INDUCTION = 3  # heads the one-click buttons switch off
SHOWN = 5  # bars before and after


def _all_heads(model) -> list[str]:
    c = model.config
    return [head_code(i, j) for i in range(c.n_layers) for j in range(c.n_heads)]


def _strongest(model) -> list[str]:
    """The TOP_INDUCTION heads with the highest induction score on the repeat."""
    scores = scores_of(model, repeat_of(model, SEED).ids, SEED)["induction"]
    order = np.argsort(-scores.ravel(), kind="stable")[:TOP_INDUCTION]
    return [head_code(*divmod(int(k), model.config.n_heads)) for k in sorted(order)]


def tell_url(model) -> None:
    """The URL's off= naming a head the model lacks: said at the page's top, where the link's
    reader looks, not by the picker 5,000 px down."""
    c = model.config
    told("off", lambda text: all(from_code(x, c.n_layers, c.n_heads) for x in _codes(text)))


def _codes(text: str) -> list[str]:
    """The URL's off=6.2,12.3 as its codes (off= alone: none)."""
    return [x for x in text.split(",") if x]


def _set(codes: list[str]) -> None:
    st.session_state[KEY] = codes


def chosen(model, base: int) -> frozenset:
    """The heads switched off, from the box (first from the URL's off=6.2,12.3)."""
    c = model.config
    if KEY not in st.session_state:
        codes = _codes(st.query_params.get("off", ""))
        st.session_state[KEY] = [x for x in codes if from_code(x, c.n_layers, c.n_heads)]
    options = _all_heads(model)
    strongest = _strongest(model)
    others = [x for x in options if x not in strongest]
    rng = np.random.default_rng(1)  # the same "random" heads for everyone: a class compares
    random = sorted(rng.choice(others, TOP_INDUCTION, replace=False).tolist(), key=options.index)
    buttons = (  # one click each: key, label, the heads it switches off
        ("in_off_top", t("inside.off_strongest", k=TOP_INDUCTION), strongest),
        ("in_off_random", t("inside.off_random", k=TOP_INDUCTION), random),
        ("in_off_none", t("inside.off_none"), []),
    )
    for column, (key, text, codes) in zip(st.columns(3), buttons, strict=True):
        column.button(text, key=key, width="stretch", on_click=_set, args=(codes,),
                      type="primary" if key == "in_off_top" else "secondary")  # fmt: skip
    codes = st.multiselect(
        t("inside.off_pick"),
        options,
        key=KEY,
        placeholder=t("inside.off_placeholder"),
        select_all=False,  # Streamlit's "Select N matches" row: English, and one press took all
        filter_mode="contains",  # "6" finds layer 6's heads, not every name with a 6 in it
        format_func=lambda x: head_name(*from_code(x, c.n_layers, c.n_heads), base),
    )
    keep_in_url("off", ",".join(codes), "")
    return frozenset(from_code(x, c.n_layers, c.n_heads) for x in codes)


def _bars(model, ids: tuple, off: frozenset, title: str):
    run = stream_pass(model, ids, off)  # (no heads off: the page's one pass)
    p = softmax_rows(run.logits[-1].astype(np.float64))  # [vocab]
    top = np.argsort(-p)[:SHOWN]
    return probability_bars(
        [piece(model, int(i)) for i in top], p[top], [True] * SHOWN, title, t("inside.p_axis")
    )


def section(model, ids: tuple, answer: int, base: int) -> None:
    off = chosen(model, base)
    names = t("shell.list_sep").join(head_name(*pair, base) for pair in sorted(off))
    bars = [(_bars(model, ids, frozenset(), t("inside.bars_before")), "in_bars_before")]
    if off:  # with none off, "after" would repeat "before"
        bars.append((_bars(model, ids, off, t("inside.bars_after")), "in_bars_after"))
    grid(bars, per_row=2)
    before = repeat_of(model, SEED)
    after = repeat_of(model, SEED, off) if off else before
    table(
        {
            "": [t("inside.before"), t("inside.after")],
            t("inside.first_copy"): [num(before.first, 2), num(after.first, 2)],
            t("inside.second_copy"): [num(before.second, 2), num(after.second, 2)],
        }
    )
    story = "inside.off_story" if off else "inside.off_story_none"
    st.success(
        t(story, heads=names, before=num(before.second, 2), after=num(after.second, 2)),
        icon=":material/lightbulb:",
    )
    _ranks(model, ids, off, answer, base)


def _ranks(model, ids: tuple, off: frozenset, answer: int, base: int) -> None:
    """The whole model's answer: its rank after each layer, and with heads off beside it."""
    rank_before = lens_of(model, ids).rank
    series = {t("inside.before"): rank_before}
    if off:
        rank_after = lens_of(model, ids, off, answer).rank
        series[t("inside.after")] = rank_after
    word = piece(model, answer)
    chart = line_chart(list(range(len(rank_before))), series,
                       title=t("inside.rank_title", answer=word), x_title=t("inside.x_layer"),
                       y_title="", log=False, log_y=True,
                       x_labels=stream_ticks(model.config.n_layers, base))  # fmt: skip
    plot(chart, "in_off_rank")
    if not off:
        return
    last = zip(row_names(len(rank_after) - 1, base)[-3:], rank_after[-3:], strict=True)
    rows = t("shell.list_sep").join(t("inside.rank_at", row=n, rank=int(r)) for n, r in last)
    st.caption(t("inside.off_rank_note", answer=markdown_text(word), rows=rows))
