"""A step-through widget: a slider that opens at its first position, with Play and Pause.

While it plays, a fragment reruns about once a second and moves the slider one step, then stops
at the last position. Only the fragment (the slider and what ``draw`` puts on the page) reruns,
Play and Pause included: the timer is drawn inside it while it plays (ui/kit/ticker.py). A widget
``above`` draws inside the fragment (a Next button) reruns the fragment alone too.
"""

import time

import streamlit as st

from ui.kit.announce import announce
from ui.kit.i18n import t
from ui.kit.ticker import ONCE, tick, tick_key

ICONS = {True: ":material/pause:", False: ":material/play_arrow:"}  # (no ⏸ in the fonts)
INTERVAL_S = 1.0  # one step a second: slow enough to read each step
clock = time.monotonic  # what the timer goes by (a test puts a clock it moves by hand here)


def advance(position: int, first: int, last: int, elapsed: float, interval: float = INTERVAL_S):
    """(position, still playing) after one tick of a playing slider: one step forward once most
    of an interval has passed since the last step; at ``last`` it stops."""
    if position >= last:
        return last, False
    if elapsed < 0.8 * interval:  # a rerun for another reason: no step
        return position, True
    position += 1
    return position, position < last


def _toggle(key: str, first: int, last: int) -> None:
    """Play or Pause (a button's callback). Play at the end starts again from the first step."""
    playing = not st.session_state.get(f"{key}_playing", False)
    if playing and st.session_state.get(key, first) >= last:
        st.session_state[key] = first
    st.session_state[f"{key}_playing"] = playing
    st.session_state[f"{key}_tick"] = clock()


def _play_button(playing: bool, key: str, first: int, last: int) -> None:
    st.button(t("player.pause") if playing else t("player.play"), icon=ICONS[playing],
              key=f"{key}_button", on_click=_toggle, args=(key, first, last), width="stretch",
              disabled=last <= first)  # fmt: skip


def _ticked(key: str) -> None:
    """The timer's callback: under reduced motion (the browser's setting) its tick says "once",
    and the player steps once and stops."""
    if (st.session_state.get(tick_key(key)) or {}).get("tick") == ONCE:
        st.session_state[f"{key}_once"] = True


def player(label: str, count: int, key: str, draw, first: int = 0, help: str | None = None,
           above=None):  # fmt: skip
    """A slider over ``first`` … ``first + count − 1`` (session key ``key``, starting at
    ``first``) with a Play/Pause button; ``draw(i)`` draws what step i (0 … count − 1) shows,
    inside the same fragment so that it follows the slider; ``above()``, if given, draws first,
    inside it too. Each step is said in an aria-live region (ui/kit/announce.py), and the
    button keeps the keyboard's focus from one tick to the next: every run draws the same
    elements in the same places, the timer inside a container of its own."""
    last = first + count - 1
    playing_key, since_key, runs_key = f"{key}_playing", f"{key}_tick", f"{key}_runs"
    position = st.session_state.get(key, first)
    if not first <= position <= last:  # a shorter range than before (fewer tokens or steps)
        st.session_state[key], st.session_state[playing_key] = first, False

    @st.fragment
    def step():
        playing = st.session_state.get(playing_key, False)
        once = st.session_state.pop(f"{key}_once", False)  # reduced motion: one step a press
        if playing:
            now = clock()
            elapsed = INTERVAL_S if once else now - st.session_state.get(since_key, now)
            position, playing = advance(st.session_state.get(key, first), first, last, elapsed)
            if position != st.session_state.get(key, first):
                st.session_state[key], st.session_state[since_key] = position, now
            playing = playing and not once
            st.session_state[playing_key] = playing  # at the end it stops: no timer drawn
        st.session_state.setdefault(key, first)
        # always drawn, first: the elements after it keep their places (and the button its focus)
        with st.container(key=f"ticker_{key}"):  # takes no room (style.py)
            if playing:  # the next tick, a second after this run
                st.session_state[runs_key] = st.session_state.get(runs_key, 0) + 1
                tick(key, INTERVAL_S, st.session_state[runs_key], on_tick=lambda: _ticked(key))
            announce(key, t("player.announce", label=label, i=st.session_state[key], n=last))
        if above is not None:
            above()
        slider_column, button_column = st.columns([5, 1], vertical_alignment="bottom")
        with button_column:
            _play_button(playing, key, first, last)
        with slider_column:
            if count < 2:  # a slider needs two positions
                st.caption(f"{label}: {first}")
                value = first
            else:
                value = st.slider(label, first, last, key=key, help=help)
        draw(value - first)

    step()
