"""A student's page asks its room's pulse from the browser and reruns only when it changed.

Where this process serves classroom/pulse.py's PATH (serve.py, the README's start command), an
idle student costs the server one small held HTTP question every few seconds instead of a script
run a second, and a change costs one run of the page, started the moment the teacher makes it.
A script in this page's own component asks; nothing is fetched from anywhere but this app.
Elsewhere (``streamlit run app.py``, AppTest) the band's fragment looks at the room every second
instead (ui/room/student.py).
"""

import os

import streamlit as st

from classroom import pulse as room_pulse

# Asks PATH with the pulse the page shows (or the one it already sent for a rerun) and asks again
# as soon as the answer comes: the server holds the question until the pulse changes, or for
# HOLD_S seconds. A pulse that differs reruns the page, and its new run hands the script the new
# pulse. An answer that came back at once without a change (a failing store, a closed room)
# waits POLL_S before the next question: the page never asks in a tight loop. Where the page
# drew a second listener inside a fragment (``listen_here``: /generate's player, for a following
# student), a change reruns that fragment alone, which takes the teacher's new token there or, if
# more than that changed, reruns the page.
LISTEN_JS = """
export default function ({ data, setTriggerValue }) {
  const me = (window.__roomPulse = window.__roomPulse || {});
  if (data.here) {  // a listener inside a fragment: a change reruns that fragment, not the page
    const here = (me.here = { trigger: setTriggerValue });
    return () => { if (me.here === here) me.here = null; };
  }
  me.data = data;
  me.trigger = setTriggerValue;
  if (me.data.shown !== me.drawn) {  // a new run of the page: what it shows now
    me.drawn = me.data.shown;
    me.sent = null;
  }
  if (!me.asking) {
    me.asking = true;
    const turn = (me.turn = (me.turn || 0) + 1);
    (async () => {
      while (me.turn === turn) {
        const started = Date.now();
        let now = null;
        try {
          me.abort = new AbortController();
          const seen = encodeURIComponent(me.sent || me.data.shown);
          const reply = await fetch(`${me.data.url}&seen=${seen}`,
            { cache: "no-store", credentials: "same-origin", signal: me.abort.signal });
          now = (await reply.json()).pulse;
        } catch (error) {
          now = null;  // the server is restarting: the page reconnects by itself
        }
        if (me.turn !== turn) break;
        const changed = now && now !== me.data.shown && now !== me.sent;
        if (changed) {
          me.sent = now;
          (me.here ? me.here.trigger : me.trigger)("changed", now);
        } else if (Date.now() - started < 200) {
          await new Promise((done) => setTimeout(done, me.data.every_ms));
        }
      }
    })();
  }
  return () => {
    me.turn = (me.turn || 0) + 1;  // the loop above stops
    me.asking = false;
    if (me.abort) me.abort.abort();
  };
}
"""

_listener = st.components.v2.component("room_pulse", js=LISTEN_JS)
HERE_KEY = "room_pulse_here_listener"  # the listener inside a fragment (``listen_here``)


def served() -> bool:
    """Whether this process answers the pulse (serve.py says so at start-up)."""
    return bool(os.environ.get(room_pulse.ENV))


def listen(code: str, shown: str, away: bool) -> None:
    """The browser's held question about room ``code``; ``shown`` is the pulse this run drew,
    ``away`` whether the student explores (counted so by the pulse's heartbeat)."""
    url = f"{os.environ[room_pulse.ENV]}?code={code}" + ("&away=1" if away else "")
    with st.container(key="room_pulse"):  # takes no room (style.py)
        _listener(
            key="room_pulse_listener",
            data={"url": url, "shown": shown, "every_ms": int(room_pulse.POLL_S * 1000)},
            on_changed_change=lambda: None,  # a new pulse: this rerun is all it needs
        )


def listen_here(on_change) -> None:
    """Inside a fragment: the room's changes rerun this fragment rather than the page (the
    page's listener still asks the server; this one only takes its changes), calling
    ``on_change`` first."""
    with st.container(key="room_pulse_here"):  # takes no room (style.py)
        _listener(key=HERE_KEY, data={"here": True},
                  on_changed_change=on_change)  # fmt: skip
