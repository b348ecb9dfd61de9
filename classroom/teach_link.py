"""The teacher's link, answered over HTTP: the teacher's cookie is set before the page loads.

``GET /room/teach?room=CODE&key=KEY&…`` (served by serve.py; the room page hands it out there)
answers with a redirect to ``/?room=CODE&…``, every other parameter kept and the key dropped.
When KEY is the room's key, the answer also sets the teacher's cookie ("CODE:KEY", for the
room's lifetime): the browser is the room's teacher from its first page, the key never shows in
its address bar, and no reload can come before the cookie. A wrong key sets nothing (that
browser is a student); a store that does not answer leaves the key in the address, for the page
to try itself and say what is wrong.
"""

from urllib.parse import urlencode

from classroom.rooms import ROOM_TTL, Rooms, normal_code
from classroom.store import StoreError

PATH = "/room/teach"
COOKIE_AGE_S = ROOM_TTL  # the cookie lives as long as a room that is used


def answer(query: list[tuple[str, str]], rooms: Rooms) -> tuple[str, str | None]:
    """(the address to send the browser to, the teacher cookie's value or None) for a request
    with these query parameters (in order, as sent)."""
    params = dict(query)
    code, key = normal_code(params.get("room", "")), params.get("key", "")
    kept = [(name, value) for name, value in query if name not in ("room", "key")]
    try:
        teaches = bool(code and key) and rooms.is_teacher(code, key)
    except StoreError:
        return _page([("room", code), ("key", key), *kept]), None
    return _page([("room", code), *kept] if code else kept), f"{code}:{key}" if teaches else None


def _page(params: list[tuple[str, str]]) -> str:
    return "/?" + urlencode(params) if params else "/"
