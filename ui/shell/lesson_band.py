"""A lesson's thread. Opening a lesson's item makes its settings the widgets' state and opens its
page with its URL, which also names its place in the lesson (lesson=2&item=1, both from 1); a
view whose URL names one shows the band "第 2 课 · 第 1 / 11 项 · ◀ 上一项 · 下一项 ▶" above
it, so a reload or a shared link keeps the thread."""

import streamlit as st

from core.lessons.plan import LESSONS, Lesson, position
from ui.kit.escape import markdown_text
from ui.kit.i18n import t
from ui.kit.number_text import numbered
from ui.kit.session import FOCUS_CHOSEN, LANDING, SECTION
from ui.kit.settings import BY_URL, SETTINGS
from ui.shell.registry import script_path

GOTO = "_lesson_goto"  # the (lesson, index) a button asked for: opened by the next run's page
ARRIVED = "_lesson_at"  # the URL's (lesson, item) whose page state this session has set

STYLE = """<style>
.st-key-lesson_band {background: #eef4fb; border: 1px solid #c9dcf2; border-radius: 0.5rem;
  padding: 0.3rem 0.75rem; gap: 0.25rem 0.9rem; margin-bottom: 0.4rem;}
.st-key-lesson_band p, .st-key-lesson_band [data-testid="stMarkdownContainer"] {margin: 0;}
.st-key-lesson_band button p, .st-key-lesson_band a p {color: #0b57b7; font-weight: 600;}
.st-key-lesson_band button:disabled p {color: #8a96a3; font-weight: 400;}
div:has(> .st-key-lesson_top), .st-key-lesson_top {position: absolute; width: 0; height: 0;
  overflow: hidden;}
</style>"""
# an item opens with the section it is about in view (its heading's anchor; none: the page's top,
# with its band): the heading is looked for until the page has drawn it (a model's page draws it
# after the model's load), then kept in view while the page above it still grows, until the
# learner scrolls or presses a key
LAND = """<span hidden>{place}</span><script>
(() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const id = "{section}";
  if (!id) { main?.scrollTo({top: 0}); return; }
  let found = 0, tries = 0, moved = false;
  const stop = () => { moved = true; };
  for (const kind of ["wheel", "touchmove", "keydown", "mousedown"]) {
    window.addEventListener(kind, stop, {once: true, passive: true});
  }
  const look = () => {
    if (moved) return;
    const heading = document.getElementById(id);
    if (heading) { heading.scrollIntoView({block: "start"}); found += 1; }
    if (found < 12 && tries++ < 240) setTimeout(look, 250);
  };
  look();
})();
</script>"""


def where(lesson: Lesson, index: int) -> dict:
    """The URL's words for an item's place: its lesson's number and its own, both from 1."""
    return {"lesson": str(LESSONS.index(lesson) + 1), "item": str(index + 1)}


def go(lesson: Lesson, index: int) -> None:
    """Runs as a callback, before the sidebar is drawn: the item's settings become the widgets'
    state (a learner's earlier choices would otherwise win over the URL), the rest of the
    item's page state is cleared so it reads its URL, and settings the item does not name go
    back to their defaults. Its page opens in this run (``open_if_asked``)."""
    item = lesson.items[index]
    state, params = st.session_state, dict(item.params)
    for s in SETTINGS:  # the settings' widgets: an item sets their state directly
        if s.in_url in params:
            state[s.state_key] = s.parse(params[s.in_url])
        elif s.reset:
            state[s.state_key] = s.default
    for name in params.keys() - BY_URL.keys():  # a page's own: it reads the URL once cleared
        state.pop(name, None)
    state[FOCUS_CHOSEN] = "focus" in params
    state.pop(ARRIVED, None)  # its page sets its own pickers when it arrives (``_arrive``)
    state[GOTO] = (lesson, index)


def open_if_asked(lang: str) -> None:
    """After an item's button: switch to its page, with its URL and its place in the lesson."""
    asked = st.session_state.pop(GOTO, None)
    if asked is not None:
        lesson, index = asked
        item = lesson.items[index]
        query = {"lang": lang}  # the sidebar's widgets bound to the URL write their own; a
        # page's own are written here too (/generate's prompt, T, seed: its bound widgets write
        # their value back only when the learner moves them), so the address bar can be shared
        sidebar_bound = {k for k, s in BY_URL.items() if s.bound and s.widget != "page"}
        query.update((k, v) for k, v in item.params if k not in sidebar_bound)
        kept = [s.in_url for s in SETTINGS if not (s.reset or s.bound or s.widget == "page")]
        query.update(
            (k, st.query_params[k]) for k in kept if k in st.query_params and k not in query
        )
        # (the learner's own that the item leaves alone and no widget writes back: base=0)
        query.update(where(lesson, index))
        if st.session_state.get("room"):
            query["room"] = st.session_state["room"]
        st.switch_page(script_path(item.page), query_params=query)


def _arrive(lesson: Lesson, index: int) -> None:
    """Once per arrival at an item (a button, a reload, a shared link): the page's own pickers
    that no URL names take the item's values, before the page draws them, and the page starts
    at its top."""
    place = tuple(where(lesson, index).values())
    item = lesson.items[index]
    st.session_state[SECTION] = item.section
    if st.session_state.get(ARRIVED) != place:
        for key, value in item.state:
            st.session_state[key] = value
        st.session_state[ARRIVED] = place
        land(item.section, "/".join(place))


def land(section: str, place: str) -> None:
    """Bring ``section`` (a heading's anchor; "": the top) into view once this run draws it;
    ``place`` tells one arrival from the next, so that each runs the script anew."""
    with st.container(key="lesson_top"):
        st.html(LAND.replace("{place}", place).replace("{section}", section),
                unsafe_allow_javascript=True)  # fmt: skip


def item_title(item, base: int) -> str:
    """An item's title, its numbers (rows, layers, heads) as the page numbers them."""
    return t(f"lessons.item_{item.key}", **numbered(base))


def _title(lesson: Lesson, index: int, base: int) -> str:
    return item_title(lesson.items[index], base)


def _step(label: str, lesson: Lesson, index: int, key: str, base: int) -> None:
    """The previous or next item's button; greyed out past either end of the lesson."""
    inside = 0 <= index < len(lesson.items)
    st.button(
        t(label),
        key=key,
        on_click=go,
        args=(lesson, index),
        disabled=not inside,
        help=t("lessons.band_goes_to", nth=index + 1, title=_title(lesson, index, base))
        if inside
        else None,
        type="tertiary",
    )


def band(lang: str, base: int) -> None:
    """Open the item a button asked for; else, where the URL names a lesson's item, the band
    with the lesson's number, the item's, its title and the buttons to its neighbours."""
    open_if_asked(lang)
    at = position(st.query_params.get("lesson"), st.query_params.get("item"))
    landing = st.session_state.pop(LANDING, None)  # a room's: its teacher's item's section
    if at is None:
        st.session_state[SECTION] = ""
        if landing:
            st.html(STYLE)
            land(*landing)
        return
    lesson, index = at
    st.html(STYLE)
    _arrive(lesson, index)
    here = where(lesson, index)
    with st.container(key="lesson_band", horizontal=True, vertical_alignment="center"):
        place = t("lessons.band_position", nth=here["lesson"], item=here["item"],
                  n=len(lesson.items))  # fmt: skip
        st.markdown(f"**{place}** · {markdown_text(_title(lesson, index, base))}", width="stretch")
        _step("lessons.band_previous", lesson, index - 1, "lesson_previous", base)
        _step("lessons.band_next", lesson, index + 1, "lesson_next", base)
        st.page_link(
            script_path("lessons"), label=t("lessons.band_all"), icon=":material/menu_book:"
        )
