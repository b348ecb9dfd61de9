"""A number typed in a box, its range kept by the app: Streamlit's number box says "Number is
outside the allowed range" in English whatever the page's language, so the box is drawn without
bounds of its own, and a number outside them (or off its step) is said under it in the learner's
language, naming it, with the number the page uses instead; what was typed stays in the box. A
URL's value that is not a number at all is said too (ui/kit/url.py's ``told``)."""

from ui.kit.i18n import t
from ui.kit.url import told


def number_box(where, label: str, low: int, high: int, default: int, key: str, step: int = 1,
               tell: bool = True, **kwargs) -> int:  # fmt: skip
    """A whole number from ``low`` to ``high`` on the grid of ``step``, drawn in ``where`` (st or
    a column); the nearest such number when the box holds another, said under it. ``tell``: a
    URL's value that is not a number said here (the sidebar's own are noted there instead)."""
    if kwargs.get("bind") and tell:
        told(key, _is_whole)
    typed = where.number_input(label, value=default, step=step, key=key, **kwargs)
    value = default if typed is None else int(typed)
    used = min(max(low + round((value - low) / step) * step, low), high)
    if used != value:
        words = "shell.number_off_step" if low <= value <= high else "shell.number_outside"
        where.error(t(words, value=typed, low=low, high=high, step=step, used=used),
                    icon=":material/error:")  # fmt: skip
    return used


def _is_whole(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True
