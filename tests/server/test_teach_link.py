"""The teacher's link over HTTP (classroom/teach_link.py) on both stores: the right key sets the
teacher's cookie and leaves the address, a wrong one sets nothing, and a store that does not
answer hands the key to the page."""

from classroom import teach_link
from classroom.rooms import Rooms
from classroom.store import StoreError


def test_the_rooms_key_sets_the_cookie_and_leaves_the_address(store, clock):
    rooms = Rooms(store, clock=clock)
    code, key = rooms.open("teacher")
    query = [("room", code.lower()), ("key", key), ("lang", "zh"), ("big", "true")]
    assert teach_link.answer(query, rooms) == (f"/?room={code}&lang=zh&big=true", f"{code}:{key}")
    wrong = [("room", code), ("key", key[::-1]), ("lang", "en")]
    assert teach_link.answer(wrong, rooms) == (f"/?room={code}&lang=en", None)  # a student
    assert teach_link.answer([("room", code)], rooms) == (f"/?room={code}", None)
    assert teach_link.answer([("key", key)], rooms) == ("/", None)  # no room: nothing to teach
    rooms.close(code)
    assert teach_link.answer([("room", code), ("key", key)], rooms) == (f"/?room={code}", None)


def test_a_store_that_does_not_answer_leaves_the_key_for_the_page(store, clock):
    rooms = Rooms(store, clock=clock)
    code, key = rooms.open("teacher")

    class Down:
        def get(self, key):
            raise StoreError("redis_down")

    where, cookie = teach_link.answer([("room", code), ("key", key)], Rooms(Down()))
    assert (where, cookie) == (f"/?room={code}&key={key}", None)
