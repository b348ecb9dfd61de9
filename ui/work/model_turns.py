"""The server's turns at the cores (scheduling/turns.py), as the pages use them: at most one job per
core at once (a Gemma pass, or a turn's steps of a /train run), one waiting job per session, and a
waiting learner told, where the result will be drawn, how many jobs wait before theirs
("排队中：前面还有 k 个"). ``RUNS``: /train's shared runs, training in these same turns."""

import os
import threading

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from core.threads import blas_on_one_thread
from scheduling.training import TrainingRuns
from scheduling.turns import Turns
from ui.kit import heap
from ui.kit.i18n import t


def _session() -> str:
    ctx = get_script_run_ctx(suppress_warning=True)
    return ctx.session_id if ctx is not None else f"thread-{threading.get_ident()}"


class _Line:
    """A waiting job's place in line, shown where the page is being drawn (nothing outside a
    page's run: a test's thread, the server's own work)."""

    def __init__(self):
        inside_a_page = get_script_run_ctx(suppress_warning=True) is not None
        self.slot = st.empty() if inside_a_page else None

    def wait(self, ahead: int) -> None:
        if self.slot is not None:  # an element sent: a rerun asked for meanwhile stops the wait
            said = t("shell.model_waiting", k=ahead) if ahead else t("shell.model_next")
            self.slot.info(said, icon=":material/hourglass_top:")

    def done(self) -> None:
        if self.slot is not None:
            self.slot.empty()


TURNS = Turns(os.cpu_count() or 1, who=_session, show=_Line, together=blas_on_one_thread,
              held=heap.for_passes)  # fmt: skip
RUNS = TrainingRuns(turns=TURNS)  # one per server process
