"""Words a screen reader says when they change: a player's step, the cell a learner chose, the
hand check's verdict. ``announce`` writes them, hidden, where a run draws them; the page's a11y
script (ui/shell/a11y.py carries ``ANNOUNCER``) copies a changed one into one polite live region
of its own, outside what Streamlit redraws: a live region that is itself redrawn, or one that
arrives with its words already in it, is not reliably read out."""

from html import escape

import streamlit as st


def announce(topic: str, text: str) -> None:
    """Say ``text`` once it differs from what ``topic`` said last (nothing at a page's first
    drawing; "" says nothing, and lets the same words be said again later)."""
    with st.container(key=f"say_{topic}"):  # takes no room (style.py)
        st.html(f'<span data-announce="{escape(topic)}" hidden>{escape(text)}</span>')


# In the page itself (nothing fetched). A topic's first words on a page are not said (a page
# that opens is not news); after that, each change is, 150 ms after the page settles.
ANNOUNCER = """
const doc = document;
if (!doc.selfAttentionLive) {
  const live = doc.createElement("div");
  live.setAttribute("aria-live", "polite");
  live.className = "sr-only";
  live.style.cssText = "position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;"
    + "clip:rect(0 0 0 0);white-space:nowrap;border:0;padding:0";
  live.dataset.testid = "announcer_live";
  doc.body.appendChild(live);
  doc.selfAttentionLive = live;
  const said = {};
  let due = 0;
  const look = () => {
    const now = {};  // each topic's current words (not ones about to be replaced)
    for (const el of doc.querySelectorAll("[data-announce]")) {
      if (!el.closest("[data-stale=true]")) now[el.dataset.announce] = el.textContent;
    }
    for (const [key, text] of Object.entries(now)) {
      if (said[key] !== undefined && said[key] !== text) live.textContent = text;
      said[key] = text;
    }
  };
  const soon = (records) => {  // once the page has settled: no position said in passing
    if (records.every((r) => live.contains(r.target))) return;  // its own words
    clearTimeout(due);
    due = setTimeout(look, 150);
  };
  const what = {childList: true, subtree: true, characterData: true};
  new MutationObserver(soon).observe(doc.body, what);
  look();
}
"""
