"""The next token: the rules (temperature, top-k, top-p, greedy or seeded sampling, all in the
URL), the ten most likely candidates as bars, and the arithmetic from logits to the pick."""

import streamlit as st

from core.pretrained import piece_text
from ui.figures.bars import probability_bars
from ui.figures.place import plot
from ui.kit.escape import markdown_text
from ui.kit.i18n import labeller, t
from ui.kit.number_box import number_box
from ui.kit.number_text import num, power_of_ten, unbroken
from ui.kit.session import GEN_CANDIDATES
from ui.kit.tables import table
from ui.kit.url import decimal, told, url_choice
from ui.views.generate import piece_rows
from ui.work.decoding import Rules

BIND = {"bind": "query-params"}


COLUMNS = [2, 1, 2, 2, 1]  # the rules' widths in a row of columns


def rules(row) -> Rules:
    """The controls, in ``row``'s columns (they reshape the bars below them)."""
    told("gen_t", decimal(0.0, 2.0))
    told("gen_p", decimal(0.05, 1.0))
    temperature = row[0].slider(t("generate.temperature"), 0.0, 2.0, 1.0, 0.05, key="gen_t",
                                help=t("generate.temperature_help"), **BIND)  # fmt: skip
    top_k = number_box(row[1], t("generate.top_k"), 0, 200, 0, "gen_k",
                       help=t("generate.top_k_help"), **BIND)  # fmt: skip
    top_p = row[2].slider(t("generate.top_p"), 0.05, 1.0, 1.0, 0.05, key="gen_p", **BIND)
    with row[3]:
        mode = url_choice(st.radio, t("generate.mode"), ("greedy", "sample"), "gen_mode", "greedy",
                          format_func=labeller("generate.mode"), horizontal=True)  # fmt: skip
    seed = number_box(row[4], t("generate.seed"), 0, 9999, 0, "gen_seed",
                      disabled=mode == "greedy", **BIND)  # fmt: skip
    return Rules(float(temperature), int(top_k), float(top_p), mode == "sample", int(seed))


def partial_bytes(tokenizer, i: int) -> str | None:
    """A piece that is part of a character (SmolLM2 cuts 天 into E5 A4 + A9) as its bytes in hex,
    "E5 A4"; None for any other piece (core/pretrained/piece_text.py's rule)."""
    return piece_text.shown(tokenizer, i) if piece_text.is_part(tokenizer, i) else None


def label(model, i: int) -> str:
    """A token as a label, by core/pretrained/piece_text.py's one rule for every tokenizer: its
    text ("天气"), a control token by its name (<bos>), a piece that is part of a character by
    its bytes ("E5 A4"; Gemma's <0xE4> as "E4"), a run of newlines as escapes ("\\n"), and
    every space of its text as ␣ (whatever the tokenizer's own mark, ▁ or Ġ): " cat" as "␣cat",
    a piece of spaces alone as "␣", so that a leading space is seen wherever a piece is quoted
    or labelled (“␣blue”, not “ blue”) and a cell or a bar never looks empty. The pieces table
    writes them so too (piece_rows.visible); the notebook's label() is this one."""
    return piece_rows.visible(model.tokenizer, int(i))


def probability_text(p: float, decimals: int = 4) -> str:
    """``decimals`` decimals, or two significant digits for the tiny ones (no 0.0000)."""
    return num(float(p), decimals) if p >= 1e-3 else power_of_ten(float(p))


def bars(model, top, key: str, arithmetic: bool = True) -> None:
    """The most likely after ÷ T (``top``, core.lessons.sampling.Candidates), grey where
    the rules cut them, then (``arithmetic``) the table of how each got its p: left out while
    Play writes a token a second."""
    names = [f"{label(model, i)}" for i in top.ids]
    fig = probability_bars(names, top.p, top.kept, t("generate.bars_title"), t("generate.bars_y"))
    plot(fig, key)
    st.session_state[GEN_CANDIDATES] = (names[:4], [float(q) for q in top.q[:4]])
    kept = "generate.kept_all" if top.kept_count == top.vocab else "generate.kept"  # none cut:
    # no grey bar to point at, nothing renormalised
    st.caption(t(kept, kept=f"{top.kept_count:,}", vocab=f"{top.vocab:,}"))
    if not arithmetic:
        return
    columns = {
        t("generate.col_token"): [unbroken(markdown_text(n)) for n in names],  # "E4 BB" whole
        t("generate.col_logit"): [num(float(x), 3) for x in top.logits],
        t("generate.col_scaled"): [num(float(x), 3) for x in top.scaled],
        t("generate.col_p"): [num(float(x), 4) for x in top.p],
        t("generate.col_kept"): ["✓" if keep else "—" for keep in top.kept],
        t("generate.col_q"): [num(float(x), 4) for x in top.q],
    }  # fmt: skip
    with st.expander(t("generate.next_text", vocab=f"{top.vocab:,}"), icon=":material/calculate:"):
        table(columns)
