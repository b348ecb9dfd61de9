"""What a screen reader and a browser's tab need of every page: ``<html lang>`` as the app's
language is, a title of the page's own (with the current step where there is one), every chart's
name set on the chart (ui/figures/alt_text.py writes it beside the chart: here it is moved onto
the chart, whose SVG text is hidden from the accessibility tree), and the language switch marked
with the language it names, as is any passage in the other language."""

import json

import streamlit as st

from ui.kit.announce import ANNOUNCER
from ui.kit.i18n import LANGS, t
from ui.kit.page_script import page_script

HTML_LANG = {"en": "en", "zh": "zh-CN"}  # BCP 47, as <html lang> and a screen reader's voice want
# Streamlit's words for its controls (and a11y.st_help_for's pattern), by their names in
# assets/strings/a11y.toml; English whatever the page's language until the page's script says them
STREAMLIT_WORDS = tuple(f"a11y.st_{name}" for name in (
    "skip", "heading_link", "sidebar", "collapse_sidebar", "expand_sidebar", "open", "close",
    "decrement", "increment", "app_pages", "download_csv", "fullscreen", "exit_fullscreen",
    "search", "columns",
))  # fmt: skip

# Runs once per language (its text changes with it): the language, then every chart named, again
# whenever Streamlit redraws part of the page (a MutationObserver, a frame later). Never a "<"
# before a letter or "/" in it, even in a comment: the page's HTML sanitizer (DOMPurify) drops a
# script whose text looks like markup (page_script() refuses one).
SCRIPT = """
const LANG = %(lang)s, OTHER = %(other)s, HAN = /[\u3400-\u9fff]/g;
// Streamlit's words for its controls, in either language, and the page's for them
const WORDS = new Map(Object.entries(%(words)s)), HELP = %(help)s;
const PASSAGES = '.stMain p, .stMain li, .stMain td, .stMain th, .stMain span, .stMain label, ' +
  '.stMain summary, .stMain h1, .stMain h2, .stMain h3, [data-testid="stSidebar"] p, ' +
  '.st-key-lang_band p, [role="option"]';  // the language switch's "English" / "中文" too
const FOCUSABLE = 'button, input, [role="slider"], [tabindex="0"], a[href], summary';
const SCROLLERS = '.katex-display, .stMain pre, [data-testid="stTable"] > div';
document.documentElement.lang = LANG;
const name = () => {
  for (const alt of document.querySelectorAll('details.chart-alt[data-name]')) {
    const box = alt.closest('[class*="st-key-chart_"]');
    const chart = box && box.querySelector('.stPlotlyChart');
    if (!chart) continue;
    if (chart.getAttribute('aria-label') !== alt.dataset.name) {
      chart.setAttribute('role', 'img');
      chart.setAttribute('aria-label', alt.dataset.name);
    }
    for (const svg of chart.querySelectorAll('svg:not([aria-hidden])')) {
      svg.setAttribute('aria-hidden', 'true');
    }
  }
  // Streamlit's folded navigation (a phone's sidebar) wraps each list item of its list in a div:
  // no list then, links in a navigation landmark (axe's list and listitem rules)
  for (const list of document.querySelectorAll('ul[data-testid="stSidebarNavItems"]')) {
    if (list.getAttribute('role') !== 'none') list.setAttribute('role', 'none');
    for (const item of list.querySelectorAll('li:not([role])')) item.setAttribute('role', 'none');
  }
  // a formula, code or table wider than its column scrolls: from the keyboard too (a phone)
  for (const box of document.querySelectorAll(SCROLLERS)) {
    const wide = box.scrollWidth > box.clientWidth + 1;
    if (wide && !box.hasAttribute('tabindex')) box.tabIndex = 0;
    else if (!wide && box.hasAttribute('tabindex')) box.removeAttribute('tabindex');
  }
  // Streamlit's own names for its controls (a help icon's, the number box's steps, the skip
  // link) in the page's language; back in English after a switch from Chinese, where Streamlit
  // left an unchanged label as the script had made it
  for (const el of document.querySelectorAll('[aria-label]')) {
    const label = el.getAttribute('aria-label');
    const from = HELP.from.find(([head, tail]) => label.length > head.length + tail.length &&
      label.startsWith(head) && label.endsWith(tail));
    const help = from && label.slice(from[0].length, label.length - from[1].length);
    const said = WORDS.get(label) || (help ? HELP.page.replace('{label}', help) : '');
    if (said && said !== label) el.setAttribute('aria-label', said);
  }
  // (text written is a change the observer sees: written only when it differs, or forever)
  for (const link of document.querySelectorAll('a[href="#stMain"]')) {
    const said = WORDS.get(link.textContent);
    if (said && said !== link.textContent) link.textContent = said;
  }
  // a passage in the other language (a Chinese sentence's tokens on an English page, an English
  // word alone on a Chinese one) says so: an attribute on its element, the DOM otherwise as is
  for (const el of document.querySelectorAll(PASSAGES)) {
    if (el.childElementCount || el.closest('[data-testid="stIconMaterial"]')) continue;
    const text = el.textContent, han = (text.match(HAN) || []).length;
    const latin = (text.match(/[A-Za-z]/g) || []).length;
    const other = LANG === 'en' ? han > latin : !han && /[A-Za-z]{4}/.test(text);
    if (other && el.lang !== OTHER) el.lang = OTHER;
    else if (!other && el.lang) el.removeAttribute('lang');
  }
};
// the focus kept when its control is redrawn disabled or away (Next at the last step): it moves
// to the first control still usable in the same keyed container (Previous, in the step's band)
if (!window.__a11yFocus) {
  window.__a11yFocus = {};
  document.addEventListener('focusin', (event) => {
    const keys = [];  // its keyed containers, the innermost (often the button's own) first
    for (let box = event.target.parentElement; box; box = box.parentElement) {
      const key = [...box.classList].find((c) => c.startsWith('st-key-'));
      if (key) keys.push(key);
    }
    window.__a11yFocus = {element: event.target, keys};
  });
}
const rescue = () => {
  const {element, keys} = window.__a11yFocus;
  if (document.activeElement !== document.body || !element || !keys) return;
  if (element.isConnected && !element.disabled) return;
  for (const key of keys) {
    const box = document.querySelector('.' + key);
    const usable = box && [...box.querySelectorAll(FOCUSABLE)].find((el) => !el.disabled);
    if (usable) { usable.focus(); return; }
  }
};
if (window.__a11yObserver) window.__a11yObserver.disconnect();
let pending = false;
window.__a11yObserver = new MutationObserver(() => {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => { pending = false; name(); rescue(); });
});
window.__a11yObserver.observe(document.body, {childList: true, subtree: true});
name();
"""


def page_semantics(lang: str, title_key: str) -> None:
    """The page's language and its title (the page's heading and the app's name)."""
    other = next(code for code in LANGS if code != lang)
    script = SCRIPT % {
        "lang": json.dumps(HTML_LANG[lang]),
        "other": json.dumps(HTML_LANG[other]),
        "words": json.dumps({t(key, each): t(key, lang) for key in STREAMLIT_WORDS
                             for each in LANGS}),
        "help": json.dumps({"from": [help_for(each).split("{label}") for each in LANGS],
                            "page": help_for(lang)}),
    }  # fmt: skip
    page_script("a11y", script + ANNOUNCER)  # and what ui/kit/announce.py's topics say
    page_title(t(title_key))


def help_for(lang: str) -> str:
    """A help icon's name in ``lang``, "{label}" where its control's label goes."""
    return t("a11y.st_help_for", lang, label="{label}")


def page_title(*parts: str) -> None:
    """The browser tab's title: ``parts`` (the page's, then its step's), then the app's name."""
    st.set_page_config(page_title=" · ".join([*parts, t("a11y.app_name")]))


def statement() -> None:
    """The accessibility statement, short, at the sidebar's foot (ACCESSIBILITY.md in full)."""
    with st.expander(t("a11y.statement_title"), icon=":material/accessibility_new:"):
        st.markdown(t("a11y.statement"))
