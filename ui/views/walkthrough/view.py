"""The walkthrough's steps: for each, the formula, the shapes with numbers, figures and the row."""

import re

import streamlit as st

import core
from ui.figures import pickable as cell_pick
from ui.figures.palette import MAX_SIDE, MAX_TEXT_CELLS
from ui.kit import reference_lines as code_lines
from ui.kit.choose import selectbox
from ui.kit.i18n import labeller, t
from ui.kit.number_text import row_label, shown_index
from ui.kit.page_script import page_script
from ui.kit.session import CELL, FOCUS_CHOSEN, PART, ROOM_FOCUS, base
from ui.kit.url import coded_choice, keep_in_url, told, url_choice, whole
from ui.room import student as room_student
from ui.room.connection import from_room_view
from ui.views.practice import exercise as practice
from ui.views.walkthrough import cell_choice, predict, step_charts
from ui.views.walkthrough import worked as worked_row
from ui.views.walkthrough.steps import BY_NAME, draw, formula, shapes_line, unbroken


def backend_line(name: str) -> str:
    """Which library computed these numbers; says so when a GPU sat idle because n was small."""
    line = t("walkthrough.backend_note", backend=t(f"shell.backend_{name}"))
    if name == "numpy" and core.active_backend().name == "cupy":
        line += f" · {t('shell.backend_short', limit=core.GPU_FROM_N)}"
    return line


def _move(visible_steps, offset: int) -> None:
    before = st.session_state["step"]
    if from_room_view() and st.session_state.get("step") not in visible_steps:
        st.session_state["step"] = before  # a teacher's press starts from the room's step
    index = visible_steps.index(st.session_state["step"]) + offset
    st.session_state["step"] = visible_steps[max(0, min(len(visible_steps) - 1, index))]


def step_navigation(visible_steps, projector: bool = False):
    """Pipeline strip (one click to any step) plus Previous / Next; returns the current step and
    where its pickers go (None: under its heading). In projector mode one compact band instead:
    Previous, the step with its formula and its pickers, Next. ← and → press Previous and Next
    in every mode (on a projector, a wide step's ◀ ▶ first)."""
    locked = room_student.locked()  # the teacher has everyone following
    if projector:
        return _projector_band(visible_steps, locked)

    step = url_choice(
        st.segmented_control,
        t("walkthrough.pipeline"),
        visible_steps,
        "step",
        visible_steps[0],
        format_func=labeller("walkthrough.step"),
        disabled=locked,
        label_visibility="collapsed",
    )
    step_band(visible_steps, step)
    arrow_keys()
    return step, None


def extras_shown(settings) -> bool:
    """The page's foot (Previous / Next again, the backend line, the downloads): not on a
    projector, which keeps its height for the step and its chart, nor on the page of a student
    following the teacher, who moves the class on; turning "Follow the teacher" off brings it."""
    return not (settings.presentation or room_student.following())


def step_band(visible_steps, step: str, suffix: str = "") -> None:
    """Previous, 'step i of n' and Next in one row (``suffix`` tells the bottom band's keys)."""
    locked = room_student.locked()
    index = visible_steps.index(step)
    band = st.container(
        horizontal=True,
        vertical_alignment="center",
        horizontal_alignment="distribute",
        key=f"step_band{suffix}",
    )  # fmt: skip  (a horizontal container stays one row on a phone; columns would stack)
    band.button(
        t("walkthrough.previous"),
        on_click=_move,
        args=(visible_steps, -1),
        disabled=locked or index == 0,
        key=f"prev_step{suffix}",
    )
    band.caption(t("walkthrough.step_of", i=index + 1, n=len(visible_steps)), width="content")
    band.button(
        t("walkthrough.next"),
        on_click=_move,
        args=(visible_steps, 1),
        disabled=locked or index == len(visible_steps) - 1,
        key=f"next_step{suffix}",
    )


def _projector_band(visible_steps, locked: bool = False):
    step = st.session_state.get("step")  # a plain value here: no pipeline widget is drawn
    if step not in visible_steps:
        told("step", visible_steps.__contains__)
        step = coded_choice("step", visible_steps, visible_steps[0])
    st.session_state["step"] = step
    keep_in_url("step", step, visible_steps[0])
    index = visible_steps.index(step)
    # the arrows' columns just hold their buttons: the band keeps the width for its one line
    left, middle, right = st.columns([0.6, 10.8, 0.6], vertical_alignment="center")
    left.button(
        "◀",
        on_click=_move,
        args=(visible_steps, -1),
        disabled=locked or index == 0,
        key="prev_step",
    )
    band = middle.container(horizontal=True, vertical_alignment="center", key="projector_band")
    band.markdown(band_title(step), width="content")
    pickers = band.container(  # row_controls fills it
        horizontal=True, vertical_alignment="center", width="content", key="band_pickers"
    )
    last = len(visible_steps) - 1
    right.button(
        "▶",
        on_click=_move,
        args=(visible_steps, 1),
        disabled=locked or index == last,
        key="next_step",
    )
    arrow_keys()
    page_script("fit_charts", FIT_SCRIPT)
    return step, pickers


def band_title(step: str) -> str:
    """The projector band's line: the step's title, and its formula beside it when short. With the
    formula, the title stops at its colon (the formula says the rest: "4. Three projections"
    Q = XW_Q, K = XW_K, V = XW_V), so that the band and its pickers keep to one line at 1280 px."""
    title = t(f"walkthrough.title_{step}")
    if not BY_NAME[step].short_formula:
        return f"**{title}**"
    words = re.split("[:：]", title, maxsplit=1)[0]
    return f"**{words}** &nbsp; ${formula(step, base())}$"


def arrow_keys() -> None:
    """← and → press Previous and Next (a script in the page itself; nothing fetched;
    ignored while typing in a box)."""
    page_script("arrow_keys", ARROW_KEYS_SCRIPT)


ARROW_KEYS_SCRIPT = """
const doc = document;
if (!doc.selfAttentionArrows) {
  doc.selfAttentionArrows = true;
  doc.addEventListener("keydown", (event) => {
    // typing in a box, or a control that uses the arrows itself (a slider, a list, a radio);
    // a button or a switch just pressed keeps its focus, and ← → still step
    const el = doc.activeElement;
    const textual = el?.tagName === "TEXTAREA" || el?.tagName === "SELECT" || el?.isContentEditable
      || (el?.tagName === "INPUT" && !["checkbox", "button", "submit"].includes(el.type));
    const own = "[role=slider],[role=listbox],[role=combobox],[role=radiogroup]";
    const arrowsOwn = el?.closest?.(own);
    const typing = textual || arrowsOwn;
    if (typing || event.altKey || event.ctrlKey || event.metaKey) return;
    // a projector's wide step: its next (previous) chart first, then the next (previous) step
    const keys = {ArrowLeft: ["prev_part", "prev_step"], ArrowRight: ["next_part", "next_step"]};
    const button = (keys[event.key] || []).map(k => doc.querySelector(`.st-key-${k} button`))
      .find(b => b && !b.disabled);
    if (button) { event.preventDefault(); button.click(); }
  });
}
"""


# A step's chart on a projector takes the height from its top to the screen's bottom, whatever the
# band above it holds (a long title, a tall formula, the pickers on a second line): style.py's
# CSS gives a first guess, this script (in the page itself; nothing fetched) the height
# measured, again whenever the page changes or the window is resized.
FIT_SCRIPT = """
const doc = document, win = window;
if (!doc.selfAttentionFit) {
  doc.selfAttentionFit = true;
  let due = false;
  const fit = () => {
    due = false;
    const main = doc.querySelector("[data-testid=stMain]");
    for (const box of doc.querySelectorAll("[class*=st-key-fill_]")) {
      const top = box.getBoundingClientRect().top + (main ? main.scrollTop : 0);
      const free = Math.max(320, Math.floor(win.innerHeight - top - 14)) + "px";
      if (box.style.height !== free) box.style.setProperty("height", free, "important");
    }
  };
  const soon = () => { if (!due) { due = true; win.requestAnimationFrame(fit); } };
  new win.MutationObserver(soon).observe(doc.body, {childList: true, subtree: true});
  win.addEventListener("resize", soon);
  soon();
}
"""


def default_focus(n: int, causal: bool) -> int:
    """The last token; with the causal mask a middle row instead, which has keys masked after it
    (the last row is the one row where the mask hides nothing)."""
    return (n - 1) // 2 if causal else n - 1


def _url_index(name: str, count: int, default: int) -> int:
    told(name, whole(0, count - 1))  # counted from 0, whatever the numbering
    try:
        value = int(st.query_params.get(name, default))
    except ValueError:
        return default
    return value if 0 <= value < count else default


def _chose_focus(step: str) -> None:
    st.session_state[FOCUS_CHOSEN] = True
    cell_choice.follow_row(step)  # a chosen cell's column stays chosen on the new row


def row_controls(step: str, data, settings, place=None) -> tuple[int, int]:
    """Head and focus-row pickers, shown on the steps where they change something, in one
    compact row above the chart with the predict-first switch (in ``place``, a projector's band,
    if given). Both live in the URL (head=, focus=: counted from 0, whatever the numbering
    shown). A clicked cell or the teacher's view sets the focus row too. On the steps whose
    cells tell their story, a column picker beside the row names a cell as a click does (on a
    projector, at the top of the notes beside the chart: render)."""
    n, base, state = data.n, settings.base, st.session_state
    n_heads = settings.n_heads
    head, focus = 0, default_focus(n, settings.mask == "causal")
    width = "content" if place else "stretch"
    band = (place or st).container(horizontal=True, vertical_alignment="center", key="row_band",
                                   gap="small", width=width)  # fmt: skip
    if BY_NAME[step].per_head:
        if not isinstance(state.get("head"), int) or state["head"] >= n_heads:
            state["head"] = _url_index("head", n_heads, 0)
        band.markdown(f"**{t('walkthrough.head')}**", width="content")
        head = band.segmented_control(
            t("walkthrough.head"), range(n_heads), key="head", required=True,
            format_func=lambda h: shown_index(h, base), label_visibility="collapsed",
        )  # fmt: skip
        head = 0 if head is None else head
        keep_in_url("head", str(head), "0")
    if BY_NAME[step].focus:
        _settle_focus(step, n, focus)
        band.markdown(f"**{t('walkthrough.focus')}**", width="content")
        focus = selectbox(
            band, t("walkthrough.focus"), range(n), key="focus", on_change=_chose_focus,
            args=(step,), format_func=lambda i: row_label(i, data.tokens[i], base), width=170,
            label_visibility="collapsed",
        )  # fmt: skip
        keep_in_url("focus", str(focus), str(default_focus(n, settings.mask == "causal")))
    if step == "mask":
        with band:
            step_charts.mask_switch(settings.mask)
    # a projector keeps its band for the step; while the teacher's question is open the class
    # answers that one, so the page's own predict-first switch waits
    if not settings.presentation and not room_student.result_hidden():
        band.space("stretch")
        with band:
            predict.toggle()
    return min(head, n_heads - 1), focus


def _settle_focus(step: str, n: int, default: int) -> None:
    """The focus row before its picker is drawn: the teacher's, a newly clicked cell's, the
    URL's, or the default (which follows the mask until the learner picks a row)."""
    state = st.session_state
    following = state.pop(ROOM_FOCUS, None)
    clicked = cell_pick.picked(state.get(f"fig_{step}"))
    if following is not None and 0 <= following < n:
        state["focus"], state[FOCUS_CHOSEN] = following, True
    elif clicked is not None and clicked != state.get("_last_click") and clicked[0] < n:
        state["focus"], state[FOCUS_CHOSEN] = clicked[0], True
        state[CELL] = (step, *clicked)  # kept: the chart's own selection resets as it redraws
    elif not isinstance(state.get("focus"), int) or state["focus"] >= n:
        state["focus"] = _url_index("focus", n, default)
        state[FOCUS_CHOSEN] = "focus" in st.query_params
    elif not state.get(FOCUS_CHOSEN):
        state["focus"] = default
    state["_last_click"] = clicked


def heading(step: str, settings):
    """The step's title, a placeholder for its one-sentence lead right under it, and its formula
    (in projector mode the band above holds the title and formula). Returns the placeholder,
    which render fills once nothing is left to predict."""
    if settings.presentation:
        return st.empty()
    with st.container(key="step_title"):  # close under the band (style.py)
        st.subheader(t(f"walkthrough.title_{step}"))
        lead = st.empty()
    st.latex(formula(step, settings.base))
    return lead


def lead(place, step: str) -> None:
    """'Look here:' and what to notice in this step's numbers, in one sentence."""
    with place.container(key="step_lead"):
        st.markdown(t("walkthrough.lead_line", text=t(f"walkthrough.lead_{step}")))


def render(step: str, data, settings, head: int, focus: int, lead_place=None) -> None:
    """The lead, figures, shapes, explanation and (for the attention steps) the focus row. In
    projector mode the explanation, shapes and code sit beside the chart (below the charts of the
    wide steps). With predict first, the step's question comes first, and nothing that answers
    it (the lead, the chart, the shapes line, the explanation, the worked row) until Check."""
    if room_student.result_hidden():  # the class is answering the teacher's question
        st.info(t("room.question_hides"), icon=":material/quiz:")
        return
    if st.session_state.get("predict") and not predict.gate(step, data, head, focus, settings.base):
        code_lines.show(BY_NAME[step].symbols)  # the code, not what it gives
        return
    if not settings.presentation:
        lead(st.empty() if lead_place is None else lead_place, step)
        draw(step, data, settings, head, focus)
        _notes(step, data, settings, head)
    else:  # its band holds the title: the chart fills the height left, the lead opens the notes
        chart, notes = st.columns([2, 1])  # 8 columns of values at 24 px need 2/3 of 1280 px
        with notes:
            part = part_pager(step)
            if BY_NAME[step].depth:  # the band holds no more at 1280 px: the column picker here
                row = st.container(horizontal=True, vertical_alignment="center", key="cell_band")
                cell_choice.picker(row, step, data, focus, settings.base)
            if not BY_NAME[step].short_formula:  # (the band has only its title) a line a part
                lines = formula(step, settings.base).replace(r",\quad ", r" \\ ")
                st.latex(r"\begin{gathered}" + lines + r"\end{gathered}")
            lead(st.empty(), step)
            _notes(step, data, settings, head)
        with chart:
            draw(step, data, settings, head, focus, part)
    if BY_NAME[step].depth:
        if not settings.presentation:  # the column picker right over the story it tells (the
            # band above the chart keeps one line; a projector has it in its notes)
            row = st.container(horizontal=True, vertical_alignment="center", key="cell_band")
            cell_choice.picker(row, step, data, focus, settings.base)
        worked_row.clicked_cell(step, data, settings, head, focus)
    if BY_NAME[step].row_story:
        worked_row.focus_row(step, data, head, focus, settings)
    if BY_NAME[step].practice and not settings.presentation:  # (a projector: the step alone)
        practice.folded(BY_NAME[step].practice, data, settings, head)


def _page_part(step: str, offset: int) -> None:
    count = len(BY_NAME[step].parts)
    st.session_state[PART] = (step, max(0, min(count - 1, shown_part(step) + offset)))


def shown_part(step: str) -> int:
    """Which of a wide step's charts a projector shows: the one paged to at this step, else the
    first (every step starts from its first chart)."""
    paged = st.session_state.get(PART)
    return paged[1] if isinstance(paged, tuple) and paged[0] == step else 0


def part_pager(step: str) -> int | None:
    """On a projector, a wide step's ◀ 'Q · 1 of 3' ▶: one chart at a time, as large as the
    screen allows (← → press them first). Returns the chart shown; None for a one-chart step."""
    parts = BY_NAME[step].parts
    index = shown_part(step)
    st.session_state[PART] = (step, index)  # another step, and back: its first chart again
    if not parts:
        return None
    pager = st.container(horizontal=True, vertical_alignment="center", key="part_band")
    pager.button("◀", on_click=_page_part, args=(step, -1), disabled=index == 0, key="prev_part",
                 help=t("walkthrough.part_previous"))  # fmt: skip
    pager.markdown(t("walkthrough.part_of", name=parts[index], i=index + 1, n=len(parts)),
                   width="content")  # fmt: skip
    pager.button("▶", on_click=_page_part, args=(step, 1), disabled=index == len(parts) - 1,
                 key="next_part", help=t("walkthrough.part_next"))  # fmt: skip
    return index


def _notes(step: str, data, settings, head: int) -> None:
    """What the step means (first: the meaning before the machinery), the shapes with their
    numbers, and the code."""
    explain_key = {"mask": f"walkthrough.explain_mask_{settings.mask}"}.get(
        step, f"walkthrough.explain_{step}"
    )
    if step in ("pe", "x_pe") and data.PE is None:
        explain_key = "walkthrough.explain_pe_off"
    st.info(t(explain_key))
    line = shapes_line(step, data, head, settings.base)
    st.markdown(f"**{t('shell.shape')}** `{unbroken(line)}`")  # whole brackets, phone too
    code_lines.show(BY_NAME[step].symbols)
    if data.n > MAX_SIDE:
        side = -(-data.n // -(-data.n // MAX_SIDE))  # cells per side after block averaging
        st.caption(t("walkthrough.downsampled", n=data.n, m=side))
    elif data.n > MAX_TEXT_CELLS:
        st.caption(t("walkthrough.too_big_for_text", n=data.n))
