"""A following student's fragment that the room's changes rerun instead of the page: /generate's
player, whose teacher's Next changes only the tokens written. Sixty phones rerunning their whole
page after each of the teacher's presses cost the server ~30 ms each, one after another (the GIL):
the last saw the new token 2.0-2.5 s after the press; rerunning the player alone, 0.8-1.0 s
(bench/results/classroom_issue42_round3.txt).

The page's own listener (ui/room/pulse.py) still asks the server; while this fragment's listener
is on the page, a change reruns the fragment. The fragment then takes the room's new view here if
it differs from the one this page took in ``field`` alone, nothing else new in the room (its
lock, its question); anything else reruns the page, which takes the whole view as before.
"""

import streamlit as st

from ui.kit.session import ROOM_LOCKED, ROOM_QUESTION_OPEN, ROOM_VIEW_TAKEN
from ui.room import pulse as room_pulse
from ui.room.connection import fragment_guarded, rooms
from ui.room.student import asking, following

CHANGED = "_room_changed_here"  # set by the fragment's listener when the room changed


def _changed() -> None:
    st.session_state[CHANGED] = True


def _without(view: dict, field: str) -> dict:
    return {name: value for name, value in view.items() if name != field}


@fragment_guarded(notice=False)  # (the room closed or expired meanwhile: the page says so)
def _take(field: str) -> None:
    """The room's new view in this fragment, when only ``field`` moved; else the page reruns."""
    state = st.session_state
    room = rooms().get(state["room"])
    view, taken = room["view"], state.get(ROOM_VIEW_TAKEN)
    only_field = (
        taken is not None
        and field in view
        and _without(view, field) == _without(taken, field)
        and bool(room.get("locked")) == bool(state.get(ROOM_LOCKED))
        and asking(room) == state.get(ROOM_QUESTION_OPEN)
    )
    if not only_field or room["version"] == state.get("room_version"):
        st.rerun()
    state["room_version"], state[ROOM_VIEW_TAKEN] = room["version"], view
    state[field] = view[field]


def follow_here(field: str) -> None:
    """In a fragment, before its widgets: for a student following the teacher on a server that
    answers the room's pulse, take a change of ``field`` (a widget's key in the room's view)
    here, and listen for the next one here."""
    state = st.session_state
    if not (state.get("room") and following() and room_pulse.served()):
        return
    if state.pop(CHANGED, False):
        _take(field)
    room_pulse.listen_here(_changed)
