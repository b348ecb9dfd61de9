"""/lessons: each tutorial's lesson plan (core/lessons/plan.py), a sequence of the app's views
with the exact settings of the tutorial's examples. An item opens in this session (a teacher in a
room takes the class along) with a band that walks through the lesson (ui/shell/lesson_band.py);
its link reproduces the view anywhere; a whole lesson opens as a room."""

import html
from urllib.parse import urlencode

import streamlit as st

from classroom.rooms import RoomError
from classroom.store import StoreError
from core.lessons.plan import LESSONS, LIKE, Item, Lesson
from ui.kit.browser import browser_id
from ui.kit.i18n import t
from ui.kit.number_text import numbered
from ui.room.connection import enter, rooms
from ui.shell.lesson_band import go, item_title, where

__all__ = ["LESSONS", "LIKE", "links_html", "show", "url"]

# the items read as links: the link's colour, the whole title clickable, wrapped on a phone
STYLE = """<style>
[class*="st-key-items_"] {gap: 0.1rem;}
[class*="st-key-items_"] button {justify-content: flex-start; text-align: left; min-height: 0;
  padding: 0.15rem 0;}
[class*="st-key-items_"] button p {color: #0b57b7; font-size: 1rem; text-decoration: underline;
  text-decoration-color: #9bbbe3; text-underline-offset: 0.2em;}
[class*="st-key-items_"] button:hover p {color: #073f86; text-decoration-color: currentColor;}
</style>"""


def url(item: Item, lang: str, lesson: Lesson | None = None) -> str:
    """The item's address: a shared link opens exactly this view (and, given its lesson, with
    the lesson's band)."""
    path = "" if item.page == "walkthrough" else item.page
    place = where(lesson, lesson.items.index(item)) if lesson else {}
    return f"/{path}?" + urlencode({"lang": lang, **dict(item.params), **place})


def _open_room(lesson: Lesson) -> None:
    """Open a room with this session as its teacher, and go to the lesson's first view."""
    try:
        code, key = rooms().open(browser_id())
    except RoomError:  # every room the store holds has students
        st.session_state["_lesson_room_failed"] = "lessons.lesson_room_failed"
        return
    except StoreError:  # the store does not answer: say so, as the room's band does
        st.session_state["_lesson_room_failed"] = "room.reconnecting"
        return
    enter(code, key)
    go(lesson, 0)


def links_html(lesson: Lesson, lang: str, base: int) -> str:
    """Each item's address as a link to copy or share (one element for the whole lesson)."""
    rows = "".join(
        f'<li><a href="{html.escape(url(item, lang, lesson))}" target="_blank">'
        f"{html.escape(item_title(item, base))}</a></li>"
        for item in lesson.items
    )
    return f'<ol style="margin:0;padding-left:1.4rem;line-height:1.7">{rows}</ol>'


def _items(lesson: Lesson, base: int) -> None:
    """The lesson's items, numbered from 1, each a link-like button that opens it."""
    with st.container(key=f"items_{lesson.key}"):
        for index, item in enumerate(lesson.items):
            st.button(
                f"{index + 1}. {item_title(item, base)}",
                key=f"go_{lesson.key}_{index + 1}",
                on_click=go,
                args=(lesson, index),
                type="tertiary",
                icon=":material/arrow_forward:",
            )


def show(lang: str, base: int) -> None:
    failed = st.session_state.pop("_lesson_room_failed", None)
    if failed:
        st.warning(t(failed))
    st.html(STYLE)
    for lesson in LESSONS:
        with st.container(border=True, key=f"lesson_{lesson.key}"):
            st.subheader(t(f"lessons.lesson_{lesson.key}_title"))
            source = t(f"lessons.lesson_{lesson.key}_source")
            st.caption(f"{source} · {t(f'lessons.numbered_from_{base}')}")
            st.markdown(t(f"lessons.lesson_{lesson.key}_intro", **numbered(base)))
            _items(lesson, base)
            with st.expander(t("lessons.lesson_links")):
                st.html(links_html(lesson, lang, base))
            in_room = bool(st.session_state.get("room"))
            st.button(
                t("lessons.lesson_open_room"),
                key=f"room_{lesson.key}",
                on_click=_open_room,
                args=(lesson,),
                disabled=in_room,
                help=t("lessons.lesson_in_room") if in_room else t("lessons.lesson_open_room_help"),
                icon=":material/groups:",
            )
