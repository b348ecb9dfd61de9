"""One browser tab, as Streamlit's websocket protocol sees it: for benchmarks and deploy tests.

Nothing leaves loopback. ``Learner.run`` reruns the page with widget states and waits for the
script to finish, collecting the widgets' ids (by their keys) and the text it was sent.
"""

import asyncio
import json
import re
import time

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

from ui.kit.browser import BROWSER_COOKIE

EARLY_FOR_RERUN = ForwardMsg.ScriptFinishedStatus.FINISHED_EARLY_FOR_RERUN
OPEN_TIMEOUT_S = 15  # a desktop browser's wait for its websocket (Streamlit's frontend)


async def connect(
    base: str, page: str, query: str, cookie: str | None = None, stack=None, browser: str = ""
):
    """A websocket session on ``base`` (http://host:port), its first run done; the replica that
    answered (nginx's X-Replica header, when behind deploy/local.sh) is ``learner.replica``.
    ``cookie``: nginx's route; ``browser``: the browser's id cookie (32 hex digits), as a
    browser that came before sends it."""
    url = base.replace("http://", "ws://") + "/_stcore/stream"
    sent = [f"route={cookie}"] if cookie else []
    sent += [f"{BROWSER_COOKIE}={browser}"] if browser else []
    headers = {"Cookie": "; ".join(sent)} if sent else None
    # no keepalive pings of the client's own (a browser sends none either): on 2 cores, a class
    # arriving at once and /generate loading its model can hold a reply past websockets' 20 s
    # ping timeout; every wait for the server has its own timeout (Learner.run)
    # a browser's Streamlit client waits 15 s for its websocket to open (60 s on Android), then
    # says it timed out and connects again (WebsocketConnection in Streamlit's frontend): the
    # same 15 s here, where websockets' own default is 10
    ws = websockets.connect(
        url, subprotocols=["streamlit"], max_size=None, additional_headers=headers,
        ping_interval=None, open_timeout=OPEN_TIMEOUT_S,
    )  # fmt: skip
    ws = await (stack.enter_async_context(ws) if stack else ws)
    learner = Learner(ws, page, query)
    learner.replica = ws.response.headers.get("X-Replica", "")
    await learner.run()
    return learner


async def open_room(base: str, lang: str = "en", cookie: str | None = None, stack=None):
    """A room opened on the room page of ``base``: (that page's session, the code, the key), the
    code and key read from the links the page hands out."""
    desk = await connect(base, "room", f"lang={lang}", cookie, stack)
    await desk.run(desk.press("room_open"))
    links = " ".join(desk.texts)
    code = re.search(r"\?room=([A-Z0-9]{5})", links).group(1)
    key = re.search(r"&key=([\w-]+)", links).group(1)
    return desk, code, key


class Learner:
    """One browser tab: a websocket session on one page, its widget ids and the text it was sent."""

    def __init__(self, ws, page: str, query: str):
        self.ws, self.query = ws, query
        self.page = page
        self.widgets: dict[str, str] = {}  # user key -> widget id
        self.in_fragment: dict[str, str] = {}  # widget id -> the fragment drawing it
        self.texts: list[str] = []
        self.fragments: dict[str, float] = {}  # fragment id -> seconds between auto reruns
        self.exceptions: list[str] = []  # Streamlit's exception elements: type and message
        self.options: dict[str, list[str]] = {}  # a choice widget's key -> its shown options
        self.config = None  # the server's settings its session was opened with (NewSession)

    @property
    def page(self) -> str:
        return self._page

    @page.setter
    def page(self, name: str) -> None:
        """Go to another page (by its URL name): its hash comes with its first run."""
        self._page, self.page_hash = name, ""

    async def run(self, *states: WidgetState, timeout: float = 120, fragment: str = "") -> float:
        """Rerun the page (or one fragment, as the browser's timer does) with these widget
        states; seconds until the script finished, reruns it asked for included. A widget drawn
        by a fragment reruns that fragment alone, as a browser asks."""
        message = BackMsg()
        message.rerun_script.query_string = self.query
        message.rerun_script.page_name = self.page
        message.rerun_script.page_script_hash = self.page_hash  # as a browser sends it: a rerun
        # the script asks for itself (st.rerun() in a fragment) stays on this page
        message.rerun_script.widget_states.widgets.extend(states)
        if fragment:
            message.rerun_script.fragment_id = fragment
            message.rerun_script.is_auto_rerun = True
        elif states and states[0].id in self.in_fragment:
            message.rerun_script.fragment_id = self.in_fragment[states[0].id]
        start = time.perf_counter()
        await self.ws.send(message.SerializeToString())
        self.texts, self.exceptions = [], []
        while True:
            reply = ForwardMsg()
            reply.ParseFromString(await asyncio.wait_for(self.ws.recv(), timeout=timeout))
            kind = reply.WhichOneof("type")
            if kind == "new_session":
                self.config = reply.new_session.config
            if kind == "navigation":  # the page st.navigation ran: a browser keeps its hash
                self.page_hash = reply.navigation.page_script_hash
            if kind == "script_finished" and reply.script_finished != EARLY_FOR_RERUN:
                return time.perf_counter() - start
            if kind == "delta" and reply.delta.WhichOneof("type") == "new_element":
                self._read(reply.delta.new_element, reply.delta.fragment_id)
            if kind == "auto_rerun":
                self.fragments[reply.auto_rerun.fragment_id] = reply.auto_rerun.interval

    def _read(self, element, fragment: str = "") -> None:
        kind = element.WhichOneof("type") or "empty"
        body = getattr(element, kind, None)
        if kind == "exception":
            self.exceptions.append(f"{body.type}: {body.message}")
        widget_id = getattr(body, "id", "")
        if widget_id.startswith("$$ID-"):
            self.widgets[widget_id.rsplit("-", 1)[1]] = widget_id
            self.in_fragment.pop(widget_id, None)
            if fragment:
                self.in_fragment[widget_id] = fragment
            if kind == "radio":
                self.options[widget_id.rsplit("-", 1)[1]] = list(body.options)
        for name in ("body", "label", "code_text", "text"):  # text: a progress bar's
            text = getattr(body, name, "")
            if isinstance(text, str) and text:
                self.texts.append(text)

    def trigger(self, key: str, event: str, value) -> WidgetState:
        """A custom component's event (components v2), as its script's setTriggerValue sends it:
        one payload on the component's trigger widget; in a fragment, it reruns that fragment."""
        base = self.widgets[key]
        trigger_id = f"$$STREAMLIT_INTERNAL_KEY_{base}__events"
        if base in self.in_fragment:
            self.in_fragment[trigger_id] = self.in_fragment[base]
        payload = json.dumps([{"event": event, "value": value}])
        return WidgetState(id=trigger_id, json_trigger_value=payload)

    def press(self, key: str) -> WidgetState:
        return WidgetState(id=self.widgets[key], trigger_value=True)

    def choose(self, key: str, index: int) -> WidgetState:
        """A radio's choice, by its index: sent as the browser sends it, the option's text."""
        return WidgetState(id=self.widgets[key], string_value=self.options[key][index])

    def type_into(self, key: str, text: str) -> WidgetState:
        return WidgetState(id=self.widgets[key], string_value=text)
