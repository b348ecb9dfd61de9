"""A selectbox whose empty box says "choose" in the learner's language: Streamlit's own
placeholder, "Choose an option", sits in every selectbox's input in English whatever the page's
language (a Chinese page printed it four times)."""

from ui.kit.i18n import t


def selectbox(where, *args, **kwargs):
    """``where.selectbox(*args, **kwargs)`` (``where``: st, a column or a container), with the
    placeholder in this run's language."""
    return where.selectbox(*args, placeholder=t("shell.choose"), **kwargs)
