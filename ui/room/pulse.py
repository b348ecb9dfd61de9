"""A student's page asks its room's pulse from the browser and reruns only when it changed.

Where this process serves classroom/pulse.py's PATH (serve.py, the README's start command), an
idle student costs the server one small HTTP answer a second instead of a script run a second,
and a change costs one run of the page. A script in this page's own component asks; nothing is
fetched from anywhere but this app. Elsewhere (``streamlit run app.py``, AppTest) the band's
fragment looks at the room every second instead (ui/room/student.py).
"""

import os

import streamlit as st

from classroom import pulse as room_pulse

# Asks PATH every POLL_S seconds; a pulse that differs from the one the page was drawn with
# (and was not already sent) reruns the page. A new run of the page hands it the new pulse.
LISTEN_JS = """
export default function ({ data, setTriggerValue }) {
  const me = (window.__roomPulse = window.__roomPulse || {});
  me.data = data;
  me.trigger = setTriggerValue;
  me.sent = null;
  if (!me.timer) {
    me.timer = setInterval(async () => {
      if (me.asking) return;  // a slow answer: no second question on top of it
      let now;
      me.asking = true;
      try {
        const reply = await fetch(me.data.url, { cache: "no-store", credentials: "same-origin" });
        now = (await reply.json()).pulse;
      } catch (error) {
        return;  // the server is restarting: the page reconnects by itself
      } finally {
        me.asking = false;
      }
      if (now && now !== me.data.shown && now !== me.sent) {
        me.sent = now;
        me.trigger("changed", now);
      }
    }, data.every_ms);
  }
  return () => {
    clearInterval(me.timer);
    me.timer = null;
  };
}
"""

_listener = st.components.v2.component("room_pulse", js=LISTEN_JS)


def served() -> bool:
    """Whether this process answers the pulse (serve.py says so at start-up)."""
    return bool(os.environ.get(room_pulse.ENV))


def listen(code: str, shown: str, away: bool) -> None:
    """The browser's look at room ``code`` every POLL_S seconds; ``shown`` is the pulse this
    run drew, ``away`` whether the student explores (counted so by the pulse's heartbeat)."""
    url = f"{os.environ[room_pulse.ENV]}?code={code}" + ("&away=1" if away else "")
    with st.container(key="room_pulse"):  # takes no room (style.py)
        _listener(
            key="room_pulse_listener",
            data={"url": url, "shown": shown, "every_ms": int(room_pulse.POLL_S * 1000)},
            on_changed_change=lambda: None,  # a new pulse: this rerun is all it needs
        )
