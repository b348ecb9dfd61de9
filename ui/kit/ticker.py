"""A timer in the browser that reruns the fragment it is drawn in: a playing player's tick.

Drawn inside a fragment, it waits ``every_s`` after it is drawn, then reruns that fragment alone
(its trigger, as any widget inside a fragment does). Drawn again by that run, it waits again; not
drawn (the player paused or reached its end), it is gone and so is its timer. So Play and Pause
rerun only the player, where a fragment's own timer (``run_every``) can only be started or stopped
by a run of the whole page: on /generate that was 34 ms of CPU a press (twice a fragment's), and a
class's 20 Plays pressed in the same second held 40 Nexts for half a second (bench/results/).
Where the browser asks for reduced motion (``prefers-reduced-motion: reduce``), it sets no timer:
it answers at once with ONCE, and the player steps once and stops, so each press of Play is one
step. A script in this app's own component; nothing is fetched from anywhere.
"""

import streamlit as st

ONCE = "once"  # the tick of a browser that asks for reduced motion

TICK_JS = """
export default function ({ data, setTriggerValue }) {
  const still = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
  const send = () => setTriggerValue("tick", still ? "ONCE" : data.drawn);
  const timer = setTimeout(send, still ? 0 : data.every_ms);
  return () => clearTimeout(timer);
}
""".replace("ONCE", ONCE)

_ticker = st.components.v2.component("player_tick", js=TICK_JS)


def tick_key(key: str) -> str:
    """The ticker's widget key for the player whose session key is ``key``."""
    return f"{key}_tick_timer"


def tick(key: str, every_s: float, drawn: int, on_tick=lambda: None) -> None:
    """Rerun this fragment ``every_s`` after this run (``on_tick`` first, as its callback);
    ``drawn`` changes from one run to the next (a drawing that looked the same would not start
    the timer again). The caller draws it in a container that takes no room (style.py's
    ``ticker_`` containers)."""
    _ticker(key=tick_key(key), data={"every_ms": int(every_s * 1000), "drawn": drawn},
            on_tick_change=on_tick)  # fmt: skip
