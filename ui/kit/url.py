"""A shared link reproduces the view: choices kept in the URL by their short codes, the note for
a link whose settings are out of range (each setting's rule is its row in ui/kit/settings.py),
and a page's own values in its URL checked where the page reads them (``told``): a value that
breaks its rule is said in the learner's language, naming it, and taken out of the URL (the page
uses its default); every other value in the URL is kept.
"""

from collections.abc import Callable

import streamlit as st

from ui.kit.i18n import t
from ui.kit.settings import SETTINGS

TOLD = "_url_told"  # {key: the URL's bad value}: what this session was told about


def told(key: str, ok: Callable[[str], bool]) -> None:
    """Where a page reads its own ``key`` from the URL: a value that ``ok`` refuses is said here
    (in this session, until the URL holds a good one), and taken out of the URL."""
    said = st.session_state.setdefault(TOLD, {})
    value = st.query_params.get(key)
    if value is not None:
        if ok(value):
            said.pop(key, None)
        else:
            said[key] = value
            del st.query_params[key]
    if key in said:
        shown = f"{key}={said[key][:40]}"
        st.warning(t("shell.url_value_bad", param=shown), icon=":material/link_off:")


def whole(low: int, high: int, step: int = 1) -> Callable[[str], bool]:
    """A rule: a whole number from ``low`` to ``high``, on the grid of ``step``."""

    def ok(text: str) -> bool:
        try:
            value = int(text)
        except ValueError:
            return False
        return low <= value <= high and (value - low) % step == 0

    return ok


def decimal(low: float, high: float) -> Callable[[str], bool]:
    """A rule: a number from ``low`` to ``high``."""

    def ok(text: str) -> bool:
        try:
            return low <= float(text) <= high
        except ValueError:
            return False

    return ok


def coded_choice(key: str, codes, default: str) -> str:
    """The URL's short code for this choice (?mask=causal) when it is valid, else ``default``.

    Streamlit's own binding writes a choice widget's display label into the URL; these choices
    keep short, language-independent codes there instead (see ``keep_in_url``).
    """
    code = st.query_params.get(key)
    return code if code in codes else default


def keep_in_url(key: str, value: str, default: str) -> None:
    """Write a coded choice to the URL, leaving it out when it is the default."""
    if value == default:
        if key in st.query_params:
            del st.query_params[key]
    elif st.query_params.get(key) != value:
        st.query_params[key] = value


def url_choice(widget, label: str, codes, key: str, default: str, tell=True, **kwargs) -> str:
    """A choice widget (selectbox, radio, segmented control) whose URL keeps its short code; a
    code that names no choice is said (``told``; the sidebar's own are noted there instead)."""
    if tell:
        told(key, lambda code: code in codes)
    if getattr(widget, "__name__", "") == "selectbox":  # (its English placeholder: choose.py)
        kwargs.setdefault("placeholder", t("shell.choose"))
    start = coded_choice(key, codes, default)
    if getattr(widget, "__name__", "") == "segmented_control":  # (st's, or a column's)
        kwargs.update(default=start, required=True)
    else:
        kwargs.update(index=list(codes).index(start))
    value = widget(label, codes, key=key, **kwargs) or default
    keep_in_url(key, value, default)
    return value


def check_url() -> list[str]:
    """Settings in this session's first URL that are out of range or nonsense (noted once)."""
    if "_url_notes" not in st.session_state:
        params = st.query_params
        st.session_state["_url_notes"] = [
            f"{s.in_url}={params[s.in_url]}"
            for s in SETTINGS
            if s.widget != "page" and s.in_url in params and not s.valid(params[s.in_url])
        ]
    return st.session_state["_url_notes"]
