"""The prompt: its box (an example in each language, kept in the URL), the checks that keep bad
input in the box with a message in the learner's language, and the model's pieces."""

import re
import unicodedata
from functools import cache

import streamlit as st

import core
from core.pretrained import piece_text
from ui.kit.escape import markdown_text
from ui.kit.i18n import error_text, t
from ui.kit.number_text import unbroken
from ui.kit.tables import table
from ui.kit.url import url_choice
from ui.views.generate import piece_rows
from ui.work import model_load
from ui.work.decoding import MAX_PROMPT_CHARS, MAX_PROMPT_PIECES, decoder

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # but tab and newline
MARKERS = re.compile(r"<(bos|eos|pad|unk|mask|start_of_turn|end_of_turn)>")


@cache
def installed() -> tuple[str, ...]:
    """The decoders whose packages are here, Gemma first (read once per process)."""
    return core.decoder_names() or (core.first_decoder(),)


def display_name(name: str) -> str:
    """The model as the page names it: the registry's "Gemma 3 270M"."""
    return core.decoder_entry(name).display


def chosen_model(where=st) -> str:
    """The model the learner (or the room) chose, in the URL as model=, its picker drawn in
    ``where`` (a column beside the prompt); no picker when only one model is installed."""
    names = installed()
    if len(names) < 2:
        return names[0]
    words = {"format_func": display_name, "help": t("generate.model_help")}
    return url_choice(where.segmented_control, t("generate.model"), names, "model", names[0],
                      **words)  # fmt: skip


DRAWN = "model_drawn"  # the model this session's model page drew last
ITS_OWN = ("gen_layer", "gen_head", "in_off", "in_head_big", "in_heads")  # its layers and heads
IN_URL = ("gen_layer", "gen_head", "off")


def _forget_the_other_models(name: str) -> None:
    """A switch of model drops the pickers that name the other model's layers and heads (and
    their values in the URL): the new model opens on its own defaults."""
    drawn = st.session_state.get(DRAWN)
    if drawn is not None and drawn != name:
        for key in ITS_OWN:
            st.session_state.pop(key, None)
        for key in IN_URL:
            if key in st.query_params:
                del st.query_params[key]
    st.session_state[DRAWN] = name


def model_or_stop(where=st):
    """The chosen model, shared by the server; a missing package is said, not raised. The first
    to ask starts its load in the background (serve.py starts Gemma's with the server); while it
    runs, how long it has taken, and the page once it is done. (Loaded in the visitor's own run,
    a first visit on `streamlit run app.py` drew nothing for 10-13 s while a class arrived,
    issue 54.)"""
    name = chosen_model(where)
    _forget_the_other_models(name)
    model_load.start(name)
    if model_load.loading(name):
        _wait_for_the_model(name)
        st.stop()
    try:
        with st.spinner(t("generate.loading")):
            return decoder(name)
    except core.InputError as error:
        st.error(t("generate.missing", hint=error.params.get("hint", error_text(error))))
        st.stop()


def _wait_for_the_model(name: str) -> None:
    @st.fragment(run_every=0.5)
    def waiting():
        if not model_load.loading(name):
            st.rerun()
        seconds, usual = model_load.elapsed(name), model_load.usual_s(name)
        shown = display_name(name)
        text = t("generate.loading_for", model=shown, s=f"{seconds:.0f}", usual=f"{usual:.0f}")
        st.progress(min(seconds / usual, 0.95), text=text)

    waiting()


def prompt_box(lang: str) -> str:
    return st.text_area(
        t("generate.prompt"), value=t("generate.example", lang), key="gen_prompt", height=80,
        max_chars=None, help=t("generate.prompt_help"), bind="query-params",
    )  # fmt: skip


def prompt_ids_or_stop(model, text: str) -> tuple:
    """The prompt's ids, after the checks; on bad input its message, and nothing more here."""
    if len(text) > MAX_PROMPT_CHARS:
        st.error(t("generate.too_long", n=len(text), limit=MAX_PROMPT_CHARS))
        st.stop()
    removed = len(CONTROL.findall(text))
    text = unicodedata.normalize("NFC", CONTROL.sub("", text))
    if not text.strip():
        st.info(t("generate.empty"))
        st.stop()
    if removed:
        st.caption(t("generate.controls_removed", n=removed))
    markers = sorted(set(MARKERS.findall(text)))
    if markers:
        st.caption(
            markdown_text(
                t(
                    "generate.markers_as_text",
                    markers=t("shell.list_sep").join(f"<{m}>" for m in markers),
                )
            )
        )
    ids = tuple(model.encode(text))
    if len(ids) > MAX_PROMPT_PIECES:
        st.error(t("generate.too_many_pieces", n=len(ids), limit=MAX_PROMPT_PIECES))
        st.stop()
    return ids


def pieces_table(model, ids, base: int) -> None:
    """How this model's tokenizer writes its pieces (a caption from its registry row), then one
    column per piece, in order, headed by its position (numbered from ``base``); its rows the
    piece as a reader reads it (core/pretrained/piece_text.py: part of a character as its bytes
    in hex), its id and, where a piece is part of a character, every piece's bytes and the
    character each such piece helps spell, with a line on how many characters were cut (an Arrow
    table: a pandas one of 256 columns took most of a class's rerun here)."""
    tokenizer = model.tokenizer
    st.caption(markdown_text(piece_rows.caption(model)))
    parts = [piece_text.is_part(tokenizer, i) for i in ids]
    rows = {  # a piece's bytes held on one line ("E4 BB", never "E4 / BB" in a narrow cell)
        t("generate.col_piece"): [unbroken(piece_rows.visible(tokenizer, i)) for i in ids],
        t("generate.col_id"): [str(i) for i in ids],
    }
    if any(parts):  # every piece's bytes, and the character each part helps spell
        cut = piece_rows.split(tokenizer, ids)
        data = [piece_text.piece_bytes(tokenizer, i) for i in ids]
        rows[t("generate.col_bytes")] = [
            "" if b is None else unbroken(piece_text.hex_bytes(b)) for b in data
        ]
        rows[t("generate.col_char")] = [of or "—" for of in cut.of]  # whole: no blank cell
        st.caption(markdown_text(piece_rows.note(model, cut)))
    columns = {"": list(rows)}  # the rows' names, then a column per position
    columns.update(
        (str(position + base), [values[position] for values in rows.values()])
        for position in range(len(ids))
    )
    table(columns)
