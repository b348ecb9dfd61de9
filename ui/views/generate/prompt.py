"""The prompt: its box (an example in each language, kept in the URL), the checks that keep bad
input in the box with a message in the learner's language, and the model's pieces."""

import re
import unicodedata

import streamlit as st

import core
from ui.kit import model_load
from ui.kit.decoding import MAX_PROMPT_CHARS, MAX_PROMPT_PIECES, decoder
from ui.kit.escape import markdown_text
from ui.kit.i18n import error_text, t
from ui.kit.tables import table

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # but tab and newline
MARKERS = re.compile(r"<(bos|eos|pad|unk|mask|start_of_turn|end_of_turn)>")


def model_or_stop():
    """The shared model; a missing package is said, not raised. The first to ask starts its load
    in the background (serve.py starts it with the server); while it runs, how long it has taken,
    and the page once it is done. (Loaded in the visitor's own run, a first visit on `streamlit
    run app.py` drew nothing for 10-13 s while a class arrived, issue 54.)"""
    model_load.start()
    if model_load.loading():
        _wait_for_the_model()
        st.stop()
    try:
        with st.spinner(t("generate.loading")):
            return decoder()
    except core.InputError as error:
        st.error(t("generate.missing", hint=error.params.get("hint", error_text(error))))
        st.stop()


def _wait_for_the_model() -> None:
    @st.fragment(run_every=0.5)
    def waiting():
        if not model_load.loading():
            st.rerun()
        seconds = model_load.elapsed()
        text = t("generate.loading_for", s=f"{seconds:.0f}", usual=f"{model_load.USUAL_S:.0f}")
        st.progress(min(seconds / model_load.USUAL_S, 0.95), text=text)

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
    """One column per piece, in order, headed by its position (numbered from ``base``); its rows
    the piece, its id and its byte (an Arrow table:
    a pandas one of 256 columns took most of a class's rerun here)."""
    pieces = model.pieces(ids)  # a byte-fallback piece is its byte, "<0xE4>"
    rows = {
        t("generate.col_piece"): pieces,
        t("generate.col_id"): [str(i) for i in ids],
    }
    if any(p.startswith("<0x") for p in pieces):  # a byte row only where a piece is a byte
        rows[t("generate.col_bytes")] = [p[1:-1] if p.startswith("<0x") else "" for p in pieces]
    columns = {"": list(rows)}  # the rows' names, then a column per position
    columns.update(
        (str(position + base), [values[position] for values in rows.values()])
        for position in range(len(pieces))
    )
    table(columns)
