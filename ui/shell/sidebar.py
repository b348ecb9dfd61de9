"""The shared sidebar, drawn from the settings table (ui/kit/settings.py): every setting lives in
the URL, so a shared link reproduces the view."""

import streamlit as st

from ui.kit.choose import selectbox
from ui.kit.escape import markdown_text
from ui.kit.i18n import DEFAULT_SENTENCE, LANG_NAMES, LANGS, labeller, settle_lang, t
from ui.kit.number_box import number_box
from ui.kit.session import SETTINGS_DRAWN, relabel_pickers
from ui.kit.settings import SIDEBAR, Setting, Settings, settings_from
from ui.kit.url import check_url, coded_choice, keep_in_url, url_choice
from ui.shell.a11y import statement
from ui.shell.lesson_band import band

BIND = {"bind": "query-params"}


def browser_lang() -> str:
    """zh when the browser prefers Chinese, else en."""
    try:
        locale = st.context.locale or ""
    except Exception:  # no browser (AppTest) or an older Streamlit
        locale = ""
    return "zh" if locale.lower().startswith("zh") else "en"


def language() -> str:
    """The language switch, pinned in the top bar of every page (ui/shell/style.py): reachable on
    a phone without opening the sidebar. Drawn first: every other label depends on it."""
    check_url()  # before the switch replaces a nonsense lang= in the URL
    with st.container(key="lang_band"):
        lang = url_choice(
            st.segmented_control,
            "Language / 语言",
            LANGS,
            "lang",
            browser_lang(),
            tell=False,  # (check_url notes it)
            format_func=LANG_NAMES.get,
            label_visibility="collapsed",
        )
    settle_lang(lang)
    return lang


def _text(s: Setting, lang: str, **kw):
    return st.text_input(t(s.label), value=DEFAULT_SENTENCE[lang], key=s.state_key, **kw, **BIND)


def _select(s: Setting, lang: str, **kw):
    index = s.choices.index(s.default)
    return selectbox(st, t(s.label), s.choices, index=index, key=s.state_key, **kw, **BIND)


def _number(s: Setting, lang: str, **kw):
    low, high = s.at
    return number_box(st, t(s.label), low, high, s.default, s.state_key, tell=False, **kw, **BIND)


def _slider(s: Setting, lang: str, **kw):
    low, high = s.at
    return st.slider(t(s.label), low, high, s.default, key=s.state_key, **kw, **BIND)


def _toggle(s: Setting, lang: str, **kw):
    return st.toggle(t(s.label), value=s.default, key=s.state_key, **kw, **BIND)


def _coded(widget):
    def draw(s: Setting, lang: str, **kw):
        codes = s.choices
        return url_choice(widget, t(s.label), codes, s.in_url, s.default, tell=False,
                          format_func=labeller(s.coded), **kw)  # fmt: skip

    return draw


def _coded_toggle(s: Setting, lang: str, **kw):
    """A switch whose URL keeps its code (base=1) only when it is not the default."""
    codes = {True: "1", False: "0"}  # the row's parse reads them back
    on = coded_choice(s.in_url, tuple(codes.values()), codes[s.default]) == codes[True]
    value = st.toggle(t(s.label), value=on, key=s.state_key, on_change=relabel_pickers, **kw)
    keep_in_url(s.in_url, codes[value], codes[s.default])
    return value


DRAW = {  # a row's widget -> how it is drawn
    "text": _text, "select": _select, "number": _number, "slider": _slider, "toggle": _toggle,
    "choice": _coded(st.selectbox), "radio": _coded(st.radio), "coded_toggle": _coded_toggle,
}  # fmt: skip


def _draw(settings, lang: str, values: dict, unused: tuple, heading) -> None:
    """Draw ``settings`` in the table's order, each group under its ``heading``."""
    group = None
    for s in settings:
        if s.group != group:
            group = s.group
            if group:
                heading(t(group))
        more = {"help": t(s.help)} if s.help else {}
        values[s.name] = DRAW[s.widget](s, lang, disabled=s.in_url in unused, **more)


def _small_heading(text: str) -> None:
    st.caption(f"**{markdown_text(text)}**")


def _set_by_room(s: Setting, lang: str):
    """A setting the room sets (no widget this run): the value the teacher's view put in the
    session, else the URL's, else its default; kept in the session for the next run."""
    value = st.session_state.get(s.state_key)
    if value is None or (s.choices and value not in s.choices):
        text = st.query_params.get(s.in_url)
        if text is not None and s.valid(text):
            value = s.parse(text)
        else:
            value = DEFAULT_SENTENCE[lang] if s.widget == "text" else s.default
    st.session_state[s.state_key] = value
    return value


def sidebar(lang: str | None = None, unused: tuple = (), room_sets=((), "")) -> Settings:
    """Draw the sidebar's settings (kept in the URL) and return them. Settings in ``unused`` (URL
    keys) do not apply to this page: they are folded away in a closed expander, drawn there
    (disabled) so that they keep their values and their place in the URL for the other pages.
    ``room_sets`` (ui/room/hooks.py): the settings a room sets for this tab, drawn as the one
    line that comes with them instead of their widgets."""
    url_notes = check_url()
    lang = lang or language()
    values = {"lang": lang}
    taken, note = room_sets
    aside = [s for s in SIDEBAR if s.in_url in unused and s not in taken]
    with st.sidebar:
        if taken:
            st.caption(note)
            values |= {s.name: _set_by_room(s, lang) for s in taken}
        drawn = [s for s in SIDEBAR if s not in aside and s not in taken]
        _draw(drawn, lang, values, unused, st.subheader)
        if aside:
            label = t("shell.unused_fold", count=len(aside))
            with st.expander(label, icon=":material/visibility_off:", expanded=False):
                names = ("、" if lang == "zh" else ", ").join(t(s.label) for s in aside)
                st.caption(t("shell.unused_here", names=names))
                _draw(aside, lang, values, unused, _small_heading)
        if not taken:  # a room's settings are the teacher's: this tab's address does not hold them
            st.caption(t("shell.share_hint"))
        statement()  # the accessibility statement, at the foot
        if url_notes:
            st.warning(
                t("shell.url_fixed", params=markdown_text(", ".join(url_notes))),
                icon=":material/link_off:",
            )
    return settings_from(values)


def current() -> Settings:
    """The settings app.py drew in this run (each run's page takes them once). Every page starts
    here: an item a lesson's button asked for opens, and a lesson's item shows its band."""
    settings = st.session_state.pop(SETTINGS_DRAWN)
    band(
        settings.lang, settings.base
    )  # a lesson's item: where the learner is in it, and its neighbours
    return settings
