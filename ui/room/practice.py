"""A student's practice line, sent to their room: the practice pages call ``record`` after each
check (core.practice.check). Outside a room, and for the room's teacher, it does nothing; a store
that fails or a room gone meanwhile never stops the learner's page (the room's band says so).

What is sent: the outcome (right, the mistake's key, other, or error), anonymous (a hash of the
browser's random id); and, for a wrong result while the student's layer settings are the room's,
the array (classroom/practice.py bounds it) with those settings and the head, so that the
teacher can project it beside the right one. Never the student's line, nor their sentence.
"""

import logging

import streamlit as st

from classroom.practice import Practice, outcome_of
from classroom.rooms import RoomError
from classroom.store import StoreError
from ui.kit.browser import browser_id
from ui.kit.settings import SETTINGS
from ui.room.connection import is_teacher, rooms

_LOG = logging.getLogger(__name__)
LAYER_ROWS = tuple(s for s in SETTINGS if s.layer)  # what a trace depends on


def practice() -> Practice:
    return Practice(rooms())


def record(settings, step: str, verdict, head: int | None = None) -> None:
    """This browser's latest ``verdict`` for ``step`` into its room (see the module's doc).
    ``head``: the head the line was for (default: the walkthrough's, as the room follows it)."""
    code = st.session_state.get("room")
    if not code or is_teacher():
        return
    if head is None:
        head = st.session_state.get("head")
    try:
        view = rooms().get(code)["view"]
        layer = room_layer(settings, view, head)
        practice().record(code, browser_id(), step, outcome_of(verdict), verdict.value, layer)
    except (StoreError, RoomError) as error:
        _LOG.warning("a practice answer was not recorded: %s", error)


def room_layer(settings, view: dict, head) -> dict | None:
    """The layer settings (by Settings' field names) and the head, when this student's layer
    settings are the room's view's; else None (their array is not kept: their sentence is their
    own, and could be anything they typed)."""
    mine = {s.name: getattr(settings, s.name) for s in LAYER_ROWS}
    if any(view.get(s.state_key) != mine[s.name] for s in LAYER_ROWS):
        return None
    if not isinstance(head, int) or head < 0:
        head = 0  # (the head is kept with the array: the right one is drawn for that head)
    return {**mine, "head": min(head, max(0, int(mine["n_heads"]) - 1))}
