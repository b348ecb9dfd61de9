"""The page's "Jupyter notebook" button: the notebook is written when it is downloaded, not on
every run (Streamlit calls the builder on the click), and the press reruns nothing (the page does
not change; a rerun under way could also drop the file the browser is fetching)."""

import streamlit as st

from ui.kit.i18n import t
from ui.notebooks.cells import MIME


def offer(build, file: str, where=st, label: str = "") -> None:
    """A download button for the notebook ``build()`` writes, saved as ``file``."""
    where.download_button(
        label or t("notebook.download"), build, file, MIME, key=f"notebook_{file}",
        icon=":material/download:", on_click="ignore",
        help=t("notebook.download_help"),
    )  # fmt: skip
