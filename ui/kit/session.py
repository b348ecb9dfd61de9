"""The session-state keys that cross modules, named once, and the two facts of this session that
every layer asks: its first index (1, or 0 with URL base=0) and its browser's anonymous id."""

import streamlit as st

from ui.kit.browser import browser_id

SETTINGS_DRAWN = "_settings"  # the Settings app.py drew in this run; the page takes them once
PAGE_SCRIPT = "_page_script"  # the page this run shows (its registry script)
CELL = "_cell"  # the walkthrough's clicked cell: (step, row, column)
PART = "_part"  # the chart a projector shows of a wide walkthrough step: (step, index)
FOCUS_CHOSEN = "_focus_chosen"  # a lesson's link names the focus row
ROOM_VIEW = "_room_view"  # a room's view to apply before the widgets are drawn
ROOM_VIEW_TAKEN = "_room_view_taken"  # the room's view this session's widgets took last
ROOM_PAGE = "_room_page"  # the room's page, where app.py goes after the navigation
ROOM_FOCUS = "_room_focus"  # the room's focus row, which the walkthrough turns into its label
ROOM_LOCKED = "_room_locked"  # the teacher has everyone following
ROOM_QUESTION_OPEN = "_room_question_open"  # the id of the room's unrevealed question, or None
INSIDE_RANKS = "_inside_ranks"  # the inside page's answer and its rank after each layer
TRAIN_SETTINGS = "_train_settings"  # the train page's run settings, for the room's bet on its step
GEN_CANDIDATES = "_gen_candidates"  # the generate page's next-token candidates, for the band
LEFT_ROOM = "_left_room"  # a teacher left: the browser's key is no longer taken back
SECTION = "_lesson_section"  # the section of its page this tab's lesson item is about ("": none)
LANDING = "_land_on"  # (section, place): a room's item's section to bring into view this run
LANDED = "_landed"  # the room's (page, section) this tab last brought into view


# the pickers whose choices print a number that follows the numbering: a browser keeps showing a
# picked choice's old label until its value is set again, so switching the numbering sets them
NUMBERED_PICKERS = (
    "head", "focus", "pj_head", "pj_q", "batch_sentence", "answer_row", "tr_bw_head", "in_off",
    "gen_layer", "gen_head", "tr_layer", "tr_head", "tr_focus", "tr_key",
)  # fmt: skip


def relabel_pickers() -> None:
    """The numbering switched: each numbered picker's value set again (the same value), so that
    the browser draws it with its new label."""
    for key in NUMBERED_PICKERS:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


def base() -> int:
    """The first index of rows, columns, heads and steps in this session: 1, or 0 (URL base=0)."""
    return 1 if st.session_state.get("base_toggle", True) else 0


def anonymous_id() -> str:
    """This browser's anonymous id (ui/kit/browser.py): a shared measurement counts its learners
    by it, and a room counts each answer once."""
    return browser_id()
