"""The shared sidebar: every setting lives in the URL so a shared link reproduces the view."""

from dataclasses import dataclass

import streamlit as st

from ui.browser import browser_id
from ui.escape import markdown_text
from ui.i18n import DEFAULT_SENTENCE, LANG_NAMES, LANGS, labeller, t

MODES = ("auto", "space", "char", "jieba")
D_MODELS = (2, 4, 6, 8, 12, 16, 32, 64, 128, 256, 512)
N_HEADS = (1, 2, 3, 4, 8)
MASKS = ("none", "causal")
MAX_TOKENS = 512
MAX_CHARS = 5000  # checked before tokenizing: jieba on 100,000 characters takes minutes


@dataclass(frozen=True)
class Settings:
    sentence: str
    lang: str
    mode: str
    d_model: int
    n_heads: int
    seed: int
    positional: bool
    mask: str
    decimals: int
    presentation: bool
    base: int = 0  # rows, columns, heads and steps are numbered from this (URL base=1)


def browser_lang() -> str:
    """zh when the browser prefers Chinese, else en."""
    try:
        locale = st.context.locale or ""
    except Exception:  # no browser (AppTest) or an older Streamlit
        locale = ""
    return "zh" if locale.lower().startswith("zh") else "en"


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


def url_choice(widget, label: str, codes, key: str, default: str, **kwargs) -> str:
    """A choice widget (selectbox, radio, segmented control) whose URL keeps its short code."""
    start = coded_choice(key, codes, default)
    if widget is st.segmented_control:
        kwargs.update(default=start, required=True)
    else:
        kwargs.update(index=list(codes).index(start))
    value = widget(label, codes, key=key, **kwargs) or default
    keep_in_url(key, value, default)
    return value


def _is_int_in(values):
    def check(text: str) -> bool:
        try:
            return int(text) in values
        except ValueError:
            return False

    return check


URL_RULES = {  # what a shared link may say; anything else is replaced by the default, with a note
    "lang": lambda v: v in LANGS,
    "mode": lambda v: v in MODES,
    "mask": lambda v: v in MASKS,
    "d_model": _is_int_in(D_MODELS),
    "n_heads": _is_int_in(N_HEADS),
    "seed": _is_int_in(range(10000)),
    "decimals": _is_int_in(range(5)),
    "pe": lambda v: v.lower() in ("true", "false"),
    "big": lambda v: v.lower() in ("true", "false"),
    "base": lambda v: v in ("0", "1"),
}


def check_url() -> list[str]:
    """Parameters of this session's first URL that are out of range or nonsense (noted once)."""
    if "_url_notes" not in st.session_state:
        st.session_state["_url_notes"] = [
            f"{key}={st.query_params[key]}"
            for key, valid in URL_RULES.items()
            if key in st.query_params and not valid(st.query_params[key])
        ]
    return st.session_state["_url_notes"]


def language() -> str:
    """The language switch, pinned in the top bar of every page (ui/style.py): reachable on a
    phone without opening the sidebar. Drawn first: every other label depends on it."""
    check_url()  # before the switch replaces a nonsense lang= in the URL
    with st.container(key="lang_band"):
        return url_choice(
            st.segmented_control,
            "Language / 语言",
            LANGS,
            "lang",
            browser_lang(),
            format_func=LANG_NAMES.get,
            label_visibility="collapsed",
        )


SETTING_NAMES = {  # a setting's key in the URL -> its label's string key
    "sentence": "sentence", "mode": "tokenizer", "d_model": "d_model", "n_heads": "n_heads",
    "seed": "seed", "pe": "positional", "mask": "mask",
}  # fmt: skip


def sidebar(lang: str | None = None, unused: tuple = ()) -> Settings:
    """Draw the sidebar widgets (bound to the URL) and return the current settings. Settings in
    ``unused`` (URL keys) do not apply to this page: they are drawn disabled, under a note."""
    bind = {"bind": "query-params"}
    url_notes = check_url()
    lang = lang or language()

    def off(name):
        return {"disabled": name in unused}

    with st.sidebar:
        if unused:
            names = ("、" if lang == "zh" else ", ").join(t(SETTING_NAMES[n]) for n in unused)
            st.info(t("unused_here", names=names), icon=":material/block:")
        st.subheader(t("sidebar_input"))
        sentence = st.text_input(
            t("sentence"),
            value=DEFAULT_SENTENCE[lang],
            key="sentence",
            help=t("sentence_help"),
            **off("sentence"),
            **bind,
        )
        mode = url_choice(
            st.selectbox,
            t("tokenizer"),
            MODES,
            "mode",
            "auto",
            format_func=labeller("mode"),
            help=t("tokenizer_help"),
            **off("mode"),
        )
        st.subheader(t("sidebar_model"))
        d_model = st.selectbox(
            t("d_model"), D_MODELS, index=D_MODELS.index(8), key="d_model", **off("d_model"), **bind
        )
        n_heads = st.selectbox(
            t("n_heads"), N_HEADS, index=1, key="n_heads", **off("n_heads"), **bind
        )
        seed = st.number_input(t("seed"), 0, 9999, 0, step=1, key="seed", **off("seed"), **bind)
        positional = st.toggle(t("positional"), value=True, key="pe", **off("pe"), **bind)
        mask = url_choice(
            st.radio, t("mask"), MASKS, "mask", "none", format_func=labeller("mask"), **off("mask")
        )
        decimals = st.slider(t("decimals"), 0, 4, 2, key="decimals", **bind)
        presentation = st.toggle(t("presentation"), value=False, key="big", **bind)
        from_one = st.toggle(
            t("number_from_one"),
            value=coded_choice("base", ("0", "1"), "0") == "1",
            key="base_toggle",
            help=t("number_from_one_help"),
        )
        keep_in_url("base", "1" if from_one else "0", "0")
        st.caption(t("share_hint"))
        if url_notes:
            st.warning(
                t("url_fixed", params=markdown_text(", ".join(url_notes))),
                icon=":material/link_off:",
            )
    return Settings(
        sentence=sentence or "",
        lang=lang,
        mode=mode,
        d_model=int(d_model),
        n_heads=int(n_heads),
        seed=int(seed),
        positional=bool(positional),
        mask=mask,
        decimals=int(decimals),
        presentation=bool(presentation),
        base=1 if from_one else 0,
    )


def base() -> int:
    """The first index of rows, columns, heads and steps in this session: 0, or 1 (URL base=1)."""
    return 1 if st.session_state.get("base_toggle") else 0


def anonymous_id() -> str:
    """This browser's anonymous id (ui/browser.py): a shared measurement counts its learners by
    it, and a room counts each answer once."""
    return browser_id()


def current() -> Settings:
    """The settings app.py drew in this run (each run's page takes them once)."""
    settings = st.session_state.pop("_settings", None)
    if settings is None:
        # Streamlit ran this page script without app.py (ui/legacy_pages.py says why): switch
        # that mode off and rerun, so app.py draws the sidebar and routes to this page
        from ui.legacy_pages import leave_legacy_mode

        leave_legacy_mode()
        st.rerun()
    return settings
