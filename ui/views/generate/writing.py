"""Writing one token at a time: Next and Play over the tokens written, and at each step the text,
the next token's bars, the new query's weights over every cached key, and the K/V cache."""

from functools import partial

import streamlit as st

from core import to_numpy
from core.pretrained import piece_text
from ui.figures.heatmaps import heatmap
from ui.figures.place import plot
from ui.kit.choose import selectbox
from ui.kit.escape import markdown_text
from ui.kit.i18n import current_lang, t
from ui.kit.number_text import NBSP, byte_size, indices, num, one_in, shown_index, unbroken
from ui.kit.player import player
from ui.kit.tables import table
from ui.kit.url import keep_in_url, told, whole
from ui.notebooks import generate as notebook
from ui.notebooks.offer import offer
from ui.room.connection import is_teacher
from ui.room.follow_here import follow_here
from ui.views.generate.next_token import bars, label, probability_text
from ui.work.decoding import (
    MAX_WRITTEN,
    candidates_at,
    prompt_for_writing,
    read_ahead,
    step_of,
    written,
)

KEY = "gen_written"
PUBLISH = "gen_publish"  # a teacher's Next, to publish with a whole run


def _next() -> None:
    st.session_state[KEY] = min(MAX_WRITTEN, st.session_state.get(KEY, 0) + 1)
    if st.session_state.get("room") and is_teacher():  # the room's view: after a whole run
        st.session_state[PUBLISH] = True


def _next_button() -> None:
    """Next, inside the player's fragment: a press reruns the text, bars and cache below it, not
    the page (pieces, training, map), which do not change with it. A teacher's press in a room
    reruns the page once more, whose end publishes the room's view; a following student's page
    takes it in this fragment alone."""
    follow_here(KEY)  # a following student: the teacher's next token, in this fragment alone
    st.button(t("generate.next"), key="gen_next", on_click=_next, type="primary",
              disabled=st.session_state.get(KEY, 0) >= MAX_WRITTEN)  # fmt: skip
    if st.session_state.pop(PUBLISH, False):
        st.rerun()


def layer_and_head(model, base: int, columns) -> tuple[int, int]:
    """The layer and head whose attention the step's row, the cache and the map show, in two
    ``columns``."""
    c = model.config
    picked = []
    for key, count, default, column, words in (
        ("gen_layer", c.n_layers, c.n_layers - 1, columns[0], "generate.layer"),
        ("gen_head", c.n_heads, 0, columns[1], "generate.head"),
    ):  # in the URL counted from 0, whatever the numbering: a link means one layer for everyone
        told(key, whole(0, count - 1))
        if key not in st.session_state:
            st.session_state[key] = int(st.query_params.get(key, default))
        if st.session_state[key] not in range(count):  # another model's layer: this one's last
            st.session_state[key] = default
        value = selectbox(column, t(words), range(count), key=key,
                          format_func=lambda i: shown_index(i, base))  # fmt: skip
        keep_in_url(key, str(value), str(default))
        picked.append(int(value))
    return picked[0], picked[1]


def start_from_url() -> None:
    """The tokens written, from the URL (written=) the first time this session draws them."""
    if KEY not in st.session_state:
        told("written", whole(0, MAX_WRITTEN))
        try:
            st.session_state[KEY] = max(0, min(MAX_WRITTEN, int(st.query_params.get("written", 0))))
        except ValueError:
            st.session_state[KEY] = 0


def section(model, prompt_ids: tuple, rules, view: tuple, base: int, decimals: int) -> None:
    start_from_url()
    prompt_for_writing(model, prompt_ids)  # the prompt's step comes with the prompt's one pass

    def draw(count: int) -> None:
        keep_in_url("written", str(count), "0")
        playing = st.session_state.get(f"{KEY}_playing", False)
        if playing:  # Play: each token as it is written
            st.progress(count / MAX_WRITTEN, text=t("generate.playing", k=count, n=MAX_WRITTEN))
        chosen = written(model, prompt_ids, rules, count)
        ids = (*prompt_ids, *chosen.tokens)
        _text_so_far(model, prompt_ids, chosen)
        step = step_of(model, ids, len(prompt_ids))
        bars(model, candidates_at(model, ids, len(prompt_ids), rules), "gen_bars", not playing)
        read_ahead(model, prompt_ids, rules, count)  # the next token's pass, before Next asks
        if playing:  # a token a second: the text and the bars; the rest when it stops
            st.caption(t("generate.while_playing"))
            return
        _query_row(model, ids, step, view, base, decimals)
        _cache_table(model, ids, step, view[0], base, decimals)

    player(t("generate.written"), MAX_WRITTEN + 1, KEY, draw, first=0, above=_next_button)


MARK = '<b style="background:#fde68a">{}</b>'  # the newest token's part of the text
# (HTML, not **: Markdown's bold fails beside Chinese punctuation)


def _text_so_far(model, prompt_ids, chosen) -> None:
    """The text written so far, by core/pretrained/piece_text.py's rule: a character whose bytes
    are not all written yet (a byte-level model writes 山 as E5, then B1 B1) is held back and
    said, its bytes shown, never drawn as "�"; the newest token's part marked."""
    tokenizer, ids = model.tokenizer, (*prompt_ids, *chosen.tokens)
    now = piece_text.written(tokenizer, ids)
    st.session_state["gen_text_so_far"] = now.text  # no <bos>, no half character
    # (the room's "which token comes next?" quotes it)
    before = piece_text.written(tokenizer, ids[:-1]) if chosen.tokens else now
    old, new = now.text, ""
    if now.text.startswith(before.text):  # what the newest token finished
        old, new = before.text, now.text[len(before.text) :]
    text = markdown_text(old) + (MARK.format(markdown_text(new)) if new else "")
    if now.missing:  # the bytes of a character begun, in a grey box after the text
        pending = f"<code>{unbroken(piece_text.hex_bytes(now.tail))}{NBSP}…</code>"
        text += MARK.format(pending) if chosen.tokens else pending  # the newest token's bytes
    st.markdown(t("generate.text_so_far", text=text), unsafe_allow_html=True)
    words = []
    if chosen.tokens:
        token, p = chosen.tokens[-1], probability_text(chosen.q[-1], 3)
        key = "generate.chosen_part" if piece_text.is_part(tokenizer, token) else "generate.chosen"
        token = unbroken(markdown_text(label(model, token)))  # "E7 9C" on one line
        words.append(t(key, t=len(chosen.tokens), token=token, p=p))
    if now.missing:
        held = unbroken(piece_text.hex_bytes(now.tail))
        words.append(t("generate.unfinished", n=now.missing, bytes=held))
    if words:
        st.caption(("" if current_lang() == "zh" else " ").join(words))


def _query_row(model, ids, step, view, base: int, decimals: int) -> None:
    layer, head = view
    row = step.A[layer][head][None, :]  # [1, t]
    pieces = [label(model, i) for i in ids]
    title = t("generate.row_title", layer=shown_index(layer, base), head=shown_index(head, base))
    fig = heatmap(row, [pieces[-1]], pieces, title=title, scale="unit", decimals=decimals,
                  col_title=t("generate.col_token"))  # fmt: skip
    plot(fig, "gen_row")


CACHE_ROWS = 12  # a longer cache shows its first rows and its last, the newest row in view


def _ends(rows: dict) -> dict:
    """Every row of a short cache; a long one's first 3 and last 8 with "…" between, so that a
    class sees the row each step adds without scrolling inside the table."""
    n = len(next(iter(rows.values())))
    if n <= CACHE_ROWS:
        return rows
    return {name: [*column[:3], "…", *column[-8:]] for name, column in rows.items()}


def _cache_table(model, ids, step, layer: int, base: int, decimals: int) -> None:
    K, V = (to_numpy(M[layer][0][:, :3]) for M in (step.cache.K, step.cache.V))  # [t, 3] of 256
    positions = len(ids)
    title = t("generate.cache_title", layer=shown_index(layer, base))
    st.subheader(title, anchor="kv-cache")  # (lesson 4's "the cache grows a row a step")
    rows = {
        t("generate.col_position"): indices(positions, base),
        t("generate.col_token"): [unbroken(label(model, i)) for i in ids],
        **{f"k[{j + base}]": [num(float(x), decimals) for x in K[:, j]] for j in range(3)},
        **{f"v[{j + base}]": [num(float(x), decimals) for x in V[:, j]] for j in range(3)},
    }
    table(_ends(rows))
    c, size = model.config, step.cache.nbytes
    numbers = c.n_kv_heads * c.head_dim
    words = t("generate.cache_size", t=positions, layers=c.n_layers, numbers=numbers,
              bytes=f"{size:,}", size=byte_size(size))  # fmt: skip
    if c.group > 1:  # K and V once per K/V head: the factor saved against one per query head
        way = "mqa" if c.n_kv_heads == 1 else "gqa"
        words += t(f"generate.cache_shared_{way}", h=c.n_heads, kv=c.n_kv_heads, saved=c.group,
                   full=byte_size(c.group * size), one_in=one_in(c.group))  # fmt: skip
    st.caption(words)


def take_home(model, text: str, prompt_ids: tuple, rules, lang: str) -> None:
    """The page's view as a notebook: the prompt, the rules and the tokens written so far."""
    count = st.session_state.get(KEY, 0)
    build = partial(notebook.build, model.name, text, prompt_ids, rules, count, lang)
    offer(build, notebook.FILE)
