"""What a checked line gets, in the learner's language: right, a named mistake (one sentence, and
a link to the page that explains it), a refusal (the InputError's message), or "not yet" with
what differs. Learner text inside a message (a name, a piece of the line) is escaped."""

import math

import streamlit as st

import core
from ui.kit.announce import announce
from ui.kit.escape import markdown_text
from ui.kit.i18n import error_text, t
from ui.kit.number_text import power_of_ten
from ui.kit.session import LANDING
from ui.kit.settings import SETTINGS
from ui.shell.registry import by_script, script_path

# where each mistake is explained: (page script, the heading of its card there, or None: the
# page as a whole, and the card's anchor, where the link lands); a mistake missing here has no
# page of its own (its sentence says it all)
EXPLAINED = {
    "wrong_axis": ("mistakes", "mistakes.axis_title", "wrong-axis"),
    "no_transpose": ("mistakes", "mistakes.transpose_title", "no-transpose"),
    "mask_after_softmax": ("mistakes", "mistakes.order_title", "mask-after-softmax"),
    "scale_d_v": ("mistakes", "mistakes.dv_title", "scale-d-v"),
    "no_scale": ("scaling", None, ""),
    "scale_d_k": ("scaling", None, ""),
    "mask_zero": ("masks", None, ""),
}
ICONS = {
    st.success: ":material/check_circle:",
    st.warning: ":material/block:",
    st.error: ":material/cancel:",
}  # (the words say it too: never colour alone)
TOPIC = "practice"  # the screen reader's topic (ui/kit/announce.py)


def shape_text(shape) -> str:
    """[5 × 4], as the walkthrough writes shapes (kept whole where a line wraps)."""
    return "[" + "\u00a0×\u00a0".join(str(side) for side in shape) + "]"


def refusal(verdict) -> str:
    """The InputError's message, its learner-written parts escaped; for a product whose inner
    sizes differ where a transpose would fit, which one to transpose."""
    params = {k: markdown_text(v) if isinstance(v, str) else v for k, v in verdict.params.items()}
    text = error_text(core.InputError(verdict.error, **params))
    if verdict.error == "practice_matmul_shape" and verdict.params.get("fix"):
        text += "\n\n" + t("practice.transpose", fix=params["fix"])
    return text


def _wrong(step: str, verdict) -> str:
    """Why a result that ran is not the step's: the mistake it equals, else what differs."""
    name = f"`{step}`"
    if verdict.mistake:
        return t(f"practice.mistake_{verdict.mistake}")
    value = verdict.value
    if value.ndim == 0:
        return t("practice.not_a_matrix", name=name, right=shape_text(verdict.expected_shape))
    if value.shape != verdict.expected_shape:
        return t("practice.shape_differs", name=name, yours=shape_text(value.shape),
                 right=shape_text(verdict.expected_shape))  # fmt: skip
    if verdict.difference is None or not math.isfinite(verdict.difference):  # −∞ misplaced
        return t("practice.infinities_differ")
    return t("practice.differs", diff=power_of_ten(verdict.difference))


def show(step: str, verdict) -> None:
    """The verdict in a box (said by a screen reader too) and, for a named mistake, the link to
    the page that explains it."""
    if verdict.ok:
        box, text = st.success, t("practice.right", name=f"`{step}`",
                                  diff=power_of_ten(verdict.difference or 0.0))  # fmt: skip
    elif verdict.error:
        box, text = st.warning, refusal(verdict)  # (a missing transpose: it says which)
    else:
        box, text = st.error, t("practice.not_yet", why=_wrong(step, verdict))
    announce(TOPIC, text.replace("\\", "").replace("`", "").replace("\n\n", " "))
    box(text, icon=ICONS[box])
    if verdict.mistake in EXPLAINED:
        link(*EXPLAINED[verdict.mistake])


def link(script: str, card: str | None, anchor: str) -> None:
    """A link to the page that explains a mistake, landing on its card (its heading's anchor,
    brought into view as a lesson's item is: ui/shell/lesson_band.py)."""
    page = t(by_script(script).nav_key)
    label = t("practice.see_card", page=page, card=t(card)) if card else t(
        "practice.see_page", page=page)  # fmt: skip
    if st.button(label, key=f"practice_see_{script}_{anchor}", icon=":material/arrow_forward:",
                 type="tertiary"):  # fmt: skip
        st.session_state[LANDING] = (anchor, f"practice/{anchor}")
        # the learner's language, room and sidebar settings go along (the card shows the same
        # sentence); this page's own (the step, the head) stay here
        kept = {s.in_url for s in SETTINGS if s.widget != "page"} | {"room"}
        query = {k: st.query_params[k] for k in kept if k in st.query_params}
        st.switch_page(script_path(script), query_params=query)


def quiet() -> None:
    """Nothing checked here yet: the next verdict is said even if it repeats the last one."""
    announce(TOPIC, "")
