"""/lessons: each tutorial's lesson plan, a sequence of the app's views with the exact settings of
the tutorial's examples. An item opens in this session (a teacher in a room takes the class
along); its link reproduces the view anywhere; a whole lesson opens as a room."""

import html
from dataclasses import dataclass
from urllib.parse import urlencode

import streamlit as st

from classroom.rooms import RoomError
from classroom.store import StoreError
from ui.kit.browser import browser_id
from ui.kit.i18n import t
from ui.kit.session import FOCUS_CHOSEN
from ui.kit.settings import BY_URL, SETTINGS
from ui.room.connection import enter, rooms

LIKE = "我 喜欢 学习 语言"  # 第二篇's four positions, looking at 学习
MOVIE = "这 部 电影 很 好看"  # 第三篇's example: 好看 attends to 电影
T4 = "这 部 电影 好看"  # four tokens for 第三篇's T = 4, d_k = 64 derivation


@dataclass(frozen=True)
class Item:
    key: str  # its label: lessons.toml's item_<key>
    page: str  # the page's script (ui/shell/registry.py)
    params: tuple = ()  # (URL name, value) pairs: the view's exact settings


@dataclass(frozen=True)
class Lesson:
    key: str  # lesson_<key>_title / _intro / _source in lessons.toml
    items: tuple


def walk(key: str, **params) -> Item:
    return Item(key, "walkthrough", tuple(params.items()))


LESSONS = (
    Lesson("matrices", (
        walk("x", step="tokens"),
        Item("loop", "loop-vs-matrix"),
        walk("shapes", step="scores"),
        walk("scaled", step="scaled"),
        Item("masks", "masks"),
        walk("causal", step="softmax", mask="causal"),
        Item("cost", "cost"),
        Item("heads", "multi-head", (("n_heads", "4"),)),
        Item("mistakes", "mistakes"),
        Item("hand", "hand-check", (("base", "1"),)),
    )),
    Lesson("pipeline", (
        walk("like_qkv", sentence=LIKE, step="qkv", focus="2"),
        Item("projections", "projections", (("sentence", LIKE),)),
        walk("like_scores", sentence=LIKE, step="scores", focus="2"),
        walk("like_scaled", sentence=LIKE, step="scaled", focus="2"),
        Item("scaling", "scaling"),
        walk("like_softmax", sentence=LIKE, step="softmax", focus="2"),
        walk("like_av", sentence=LIKE, step="av", focus="2"),
        walk("like_block", sentence=LIKE, step="block", focus="2"),
        Item("relative", "trained", (("tr_model", "e5-small-q4"), ("tr_text", MOVIE))),
        walk("like_by_hand", sentence=LIKE, d_model="4", n_heads="1", base="1", step="softmax",
             focus="2"),
        Item("mistakes", "mistakes"),
    )),
    Lesson("transformer", (
        Item("paths", "cost"),
        Item("lookup", "projections", (("sentence", MOVIE),)),
        walk("t4_scores", sentence=T4, d_model="64", n_heads="1", base="1", step="scores",
             focus="3"),
        walk("t4_softmax", sentence=T4, d_model="64", n_heads="1", base="1", step="softmax",
             focus="3"),
        Item("variance", "scaling"),
        Item("movie", "trained", (("tr_model", "e5-small-q4"), ("tr_text", MOVIE),
                                  ("tr_focus", "好看"), ("tr_key", "电影"))),
        walk("movie_heads", sentence=MOVIE, n_heads="4", step="heads", focus="4"),
        Item("pe_page", "positional-encoding", (("pe_pair", "0"),)),
        walk("love_no_pe", sentence="我喜欢你", mode="char", pe="false", step="av"),
        walk("love_back_no_pe", sentence="你喜欢我", mode="char", pe="false", step="av"),
        walk("love_pe", sentence="我喜欢你", mode="char", pe="true", step="av"),
        walk("love_back_pe", sentence="你喜欢我", mode="char", pe="true", step="av"),
        Item("flash", "flash"),
    )),
    Lesson("writes", (
        walk("causal_train", step="softmax", mask="causal"),
        Item("cost_generation", "cost"),
        Item("gen_next", "generate", (("gen_prompt", "今天天气很好，我们一起去"),)),
        Item("gen_temperature", "generate", (("gen_prompt", "猫坐在"), ("gen_t", "1.5"),
                                             ("gen_mode", "sample"), ("gen_seed", "7"))),
        Item("gen_cache", "generate", (("gen_prompt", "The cat sat on the"), ("written", "8"))),
        Item("gen_sink", "generate", (("gen_prompt", "注意力机制让模型在生成每个词时"),
                                      ("gen_layer", "5"), ("gen_head", "0"))),
    )),
)  # fmt: skip


def url(item: Item, lang: str) -> str:
    """The item's address: a shared link opens exactly this view."""
    path = "" if item.page == "walkthrough" else item.page
    return f"/{path}?" + urlencode({"lang": lang, **dict(item.params)})


def _go(item: Item) -> None:
    """Runs as a callback, before the sidebar is drawn: the item's settings become the widgets'
    state (a learner's earlier choices would otherwise win over the URL), the rest of the lesson
    item's page state is cleared so it reads its URL, and settings the item does not name go back
    to their defaults."""
    state, params = st.session_state, dict(item.params)
    for s in SETTINGS:  # the settings' widgets: an item sets their state directly
        if s.in_url in params:
            state[s.state_key] = s.parse(params[s.in_url])
        elif s.reset:
            state[s.state_key] = s.default
    for name in params.keys() - BY_URL.keys():  # a page's own: it reads the URL once cleared
        state.pop(name, None)
    state[FOCUS_CHOSEN] = "focus" in params
    state["_lesson_goto"] = item


def go_if_asked(lang: str) -> None:
    """After a lesson item's button: switch to its page, with its URL."""
    item = st.session_state.pop("_lesson_goto", None)
    if item is not None:
        query = {"lang": lang}  # the widgets bound to the URL write their own parameters
        query.update((k, v) for k, v in item.params if not (k in BY_URL and BY_URL[k].bound))
        if st.session_state.get("room"):
            query["room"] = st.session_state["room"]
        st.switch_page(f"pages/{item.page}.py", query_params=query)


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
    _go(lesson.items[0])


def links_html(lesson: Lesson, lang: str) -> str:
    """Each item's address as a link to copy or share (one element for the whole lesson)."""
    rows = "".join(
        f'<li><a href="{html.escape(url(item, lang))}" target="_blank">'
        f"{html.escape(t(f'lessons.item_{item.key}'))}</a></li>"
        for item in lesson.items
    )
    return f'<ol style="margin:0;padding-left:1.4rem;line-height:1.7">{rows}</ol>'


def show(lang: str) -> None:
    failed = st.session_state.pop("_lesson_room_failed", None)
    if failed:
        st.warning(t(failed))
    for lesson in LESSONS:
        with st.container(border=True, key=f"lesson_{lesson.key}"):
            st.subheader(t(f"lessons.lesson_{lesson.key}_title"))
            st.caption(t(f"lessons.lesson_{lesson.key}_source"))
            st.markdown(t(f"lessons.lesson_{lesson.key}_intro"))
            for number, item in enumerate(lesson.items, start=1):
                st.button(
                    f"{number}. {t(f'lessons.item_{item.key}')}",
                    key=f"go_{lesson.key}_{number}",
                    on_click=_go,
                    args=(item,),
                    type="tertiary",
                )
            with st.expander(t("lessons.lesson_links")):
                st.html(links_html(lesson, lang))
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
