"""A timer in the browser that reruns the fragment it is drawn in: a playing player's tick.

Drawn inside a fragment, it waits ``every_s`` after it is drawn, then reruns that fragment alone
(its trigger, as any widget inside a fragment does). Drawn again by that run, it waits again; not
drawn (the player paused or reached its end), it is gone and so is its timer. So Play and Pause
rerun only the player, where a fragment's own timer (``run_every``) can only be started or stopped
by a run of the whole page: on /generate that was 34 ms of CPU a press (twice a fragment's), and a
class's 20 Plays pressed in the same second held 40 Nexts for half a second (bench/results/).
A script in this app's own component; nothing is fetched from anywhere.
"""

import streamlit as st

TICK_JS = """
export default function ({ data, setTriggerValue }) {
  const timer = setTimeout(() => setTriggerValue("tick", data.drawn), data.every_ms);
  return () => clearTimeout(timer);
}
"""

_ticker = st.components.v2.component("player_tick", js=TICK_JS)


def tick_key(key: str) -> str:
    """The ticker's widget key for the player whose session key is ``key``."""
    return f"{key}_tick_timer"


def tick(key: str, every_s: float, drawn: int) -> None:
    """Rerun this fragment ``every_s`` after this run; ``drawn`` changes from one run to the next
    (a drawing that looked the same would not start the timer again)."""
    with st.container(key=f"ticker_{key}"):  # takes no room (style.py)
        _ticker(key=tick_key(key), data={"every_ms": int(every_s * 1000), "drawn": drawn},
                on_tick_change=lambda: None)  # fmt: skip
