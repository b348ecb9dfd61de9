"""Page styling: a compact layout, and a larger-text mode for projectors."""

import base64
from pathlib import Path

import streamlit as st

from ui.kit.page_script import PAGE_SCRIPTS

# The favicon as a data URL, read once: given a file path, Streamlit would read it and register it
# with its media manager on every run of every session.
FAVICON = "data:image/png;base64," + base64.b64encode(
    (Path(__file__).resolve().parents[2] / "assets" / "icon.png").read_bytes()
).decode("ascii")

LISTENERS = ("room_pulse", "room_pulse_here")  # the room's pulse: the page's, a fragment's
TICKERS = '[class*="st-key-ticker_"]'  # a playing player's timer (ui/kit/ticker.py)
SAID = '[class*="st-key-say_"]'  # words for a screen reader's live region (ui/kit/announce.py)

BASE_CSS = """
<style>
.block-container {padding-top: 3.2rem; padding-bottom: 2rem; max-width: 1400px;}
[data-testid="stSidebar"] h3 {margin-top: 0.6rem;}
/* the language switch sits in the top bar's right corner, on every page and screen (the bar has
   no menu and no running indicator: .streamlit/config.toml's toolbarMode, both in English) */
.st-key-lang_band {position: fixed; top: 0.55rem; right: 1rem; z-index: 999990; width: auto;}
.st-key-lang_band button {min-height: 1.9rem; padding: 0 0.6rem;}
/* Streamlit's own words, in English whatever the page's language, where no setting removes
   them: "Press Enter to apply" under a box; a data grid's toolbar ("Download as CSV", "Search")
   and its column menu; a filtered list's "No results" */
[data-testid="InputInstructions"], [data-testid="stDataFrame"] [data-testid="stElementToolbar"],
[data-testid="stDataFrameColumnMenu"],
[data-testid="stMultiSelectDropdown"]:has([role="listbox"][data-empty="true"]),
[data-testid="stSelectboxVirtualDropdown"]:has([role="listbox"][data-empty="true"])
{display: none !important;}
/* the walkthrough: after step 1 the app's title gives way to the step's own; the step's lead is
   a tinted line under its title; the page's scripts (and the pulse's listener) take no space */
.st-key-page_title_small h1 {font-size: 1.25rem !important; padding: 0 !important; color: #555;}
.st-key-step_lead {background: #fff6e5; border-left: 4px solid #f0a030; padding: 0.35rem 0.7rem;
  border-radius: 0.3rem;}
.st-key-step_lead p {margin: 0;}
.st-key-step_title {gap: 0.3rem;}
.st-key-step_title h3 {padding-top: 0.2rem !important;}
FOLDED {position: absolute; width: 0; height: 0; overflow: hidden;}
.st-key-row_band {gap: 0.6rem;}
.st-key-app_caption_phone {display: none;}  /* the caveat's one line, for a phone only */
[class*="st-key-screen_phone_"] {display: none;}  /* a chart's phone twin (place.py) */
/* accessibility (issue 64): a focus ring of 3 px that stands out from every control's
   unfocused look (3:1 at least), wherever the focus lands: a button, a link, the radio or switch
   whose input is hidden (its label rings), a slider's thumb, a select, a chart's table */
:focus-visible, [role="slider"]:focus, label:has(input:focus-visible),
[data-baseweb="tab"]:focus-visible
{outline: 3px solid #0b57d0 !important; outline-offset: 2px !important;}
label:has(input[type="checkbox"]:focus-visible), label:has(input[type="radio"]:focus-visible)
{border-radius: 0.3rem;}
/* a select's box clips its input's ring: the ring goes round the whole combo box instead */
.react-aria-ComboBox input:focus-visible {outline: none !important;}
.react-aria-ComboBox:has(input:focus-visible)
{outline: 3px solid #0b57d0 !important; outline-offset: 2px !important; border-radius: 0.5rem;}
/* captions carry real content (the step counter): 4.5:1 at least, not Streamlit's faded grey */
[data-testid="stCaptionContainer"], [data-testid="stCaptionContainer"] p {color: #5c5c5c !important;
  opacity: 1 !important;}  /* (a phone's captions were faded to 0.6 on top: 2.71:1) */
[data-testid="stWidgetLabel"] p, [data-testid="stTooltipHoverTarget"] {color: #31333f;}
/* a formula scrolls sideways only (KaTeX's few px of depth made it a scrolling region) */
.katex-display {overflow-y: hidden !important;}
/* a chart's tick labels (the tokens), axis titles, colour bar and legend: Streamlit's Plotly
   theme draws them #808495 (3.8:1 on white); text, so 4.5:1 at least (#50535f: 7.6:1) */
.stPlotlyChart .xtick text, .stPlotlyChart .ytick text, .stPlotlyChart .g-xtitle text,
.stPlotlyChart .g-ytitle text, .stPlotlyChart .g-y2title text, .stPlotlyChart .cbaxis text,
.stPlotlyChart .legendtext, .stPlotlyChart .cbtitle text {fill: #50535f !important;}
/* visually hidden, read by a screen reader (an aria-live step, a chart's name) */
.sr-only {position: absolute !important; width: 1px; height: 1px; padding: 0; margin: -1px;
  overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0;}
/* every chart's numbers as a table, one keypress away (ui/figures/alt_text.py) */
details.chart-alt {margin: -0.6rem 0 0 0; font-size: 0.82rem;}
details.chart-alt summary {color: #4a4a4a; cursor: pointer; width: fit-content;}
details.chart-alt .chart-alt-scroll {overflow-x: auto; max-width: 100%;}
details.chart-alt table {border-collapse: collapse; margin: 0.3rem 0;
  font-variant-numeric: tabular-nums;}
details.chart-alt caption {text-align: left; font-weight: 600; color: #31333f;}
details.chart-alt th, details.chart-alt td {border: 1px solid #d0d0d0; padding: 0.1rem 0.4rem;
  text-align: right; color: #1f1f1f;}
details.chart-alt th {background: #f3f3f3; font-weight: 600;}
/* a phone: the current step's chart comes first; the strip of every step and the formula
   chips give way to Previous / Next, and the notes follow the chart */
@media (max-width: 640px) {
  .block-container {padding-top: 3.4rem; padding-left: 0.7rem; padding-right: 0.7rem;}
  .st-key-step, .st-key-app_caption {display: none;}
  .st-key-app_caption_phone {display: block;}
  .st-key-app_caption_phone p {white-space: nowrap; overflow: hidden; text-overflow: ellipsis;}
  h1 {font-size: 1.45rem !important; padding: 0 0 0.2rem 0 !important;}
  h3 {font-size: 1.1rem !important; padding: 0.5rem 0 0.4rem 0 !important;}
  .stMainBlockContainer [data-testid="stVerticalBlock"] {gap: 0.5rem;}
  .st-key-row_band {gap: 0.5rem;}
  .st-key-row_band [data-testid="stElementContainer"] {min-width: 0;}
  /* a wide heatmap's printed values would shrink below reading size: a tap shows each value */
  [class*="st-key-dense_"] g.heatmap-label {display: none;}
  [class*="st-key-screen_wide_"] {display: none;}
  [class*="st-key-screen_phone_"] {display: block;}
  /* a table's columns fit the phone's width (the lens table's five ranks without a swipe) */
  [data-testid="stTable"] table {font-size: 0.78rem;}
  [data-testid="stTable"] th, [data-testid="stTable"] td {padding: 0.2rem 0.3rem !important;}
}
</style>
""".replace(
    "FOLDED",
    ", ".join(
        f'{box}, [data-testid="stLayoutWrapper"]:has(> {box})'  # and its wrapper: no flex gap
        for box in [*(f".st-key-{key}" for key in (*PAGE_SCRIPTS, *LISTENERS)), TICKERS, SAID]
    ),
)
PRESENTATION_CSS = """
<style>
html, body, [data-testid="stAppViewContainer"] {font-size: 21px;}
.stMarkdown p, .stMarkdown li, .stCaption {font-size: 1.15rem !important;}
.st-key-page_title_small h1 {line-height: 1.5 !important; margin-bottom: 0.3rem;}
/* tables and the widgets' labels at the captions' size, for the back row (a data grid draws on
   a canvas at 13 px: a projector's pages print their tables instead, ui/kit/tables.py) */
[data-testid="stTable"] table, [data-testid="stWidgetLabel"] p {font-size: 1.1rem !important;}
.block-container {padding: 4.2rem 1.3rem 1rem 1.3rem; max-width: 1800px;}
/* the lead's text inside its box (Streamlit's −1rem under a paragraph that has no margin here) */
.st-key-step_lead [data-testid="stMarkdownContainer"] {margin-bottom: 0;}
[data-testid="stVerticalBlock"] {gap: 0.45rem;}
.stMarkdown .katex {font-size: 1.05em;}
/* a step's chart fills the height under the band (ui/figures/place.py: fill; a first guess,
   which the walkthrough's FIT_SCRIPT replaces with the height measured) */
[class*="st-key-fill_"] {height: calc(100vh - 190px) !important; min-height: 320px; flex: none;}
/* the step's pickers sit in the band, after its title and formula */
.st-key-projector_band {gap: 0.4rem 0.9rem; flex-wrap: wrap;}
.st-key-projector_band .katex {font-size: 0.9em;}  /* its formula: the band stays one line */
.st-key-band_pickers .st-key-row_band {gap: 0.5rem;}
.st-key-part_band {gap: 0.6rem; flex-wrap: nowrap;}
/* the code wraps rather than runs off the right */
.stMainBlockContainer pre, .stMainBlockContainer pre code {white-space: pre-wrap !important;
  overflow-wrap: anywhere;}
</style>
"""


def apply_style(presentation: bool) -> None:
    st.html(BASE_CSS + (PRESENTATION_CSS if presentation else ""))
