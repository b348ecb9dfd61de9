"""The end-of-class summary: each question asked, its answers and the share right (anonymous:
counts only), on the teacher's sidebar and as CSV. Markdown lines, not a dataframe: the
teacher's every rerun draws it, and a dataframe would load pyarrow into the server (~60 MB);
not a table either, whose columns a sidebar squeezes to a character wide."""

import csv
import io
from functools import partial

import streamlit as st

import core
from ui.kit import question_text as questions
from ui.kit.escape import markdown_text
from ui.kit.i18n import labeller, t
from ui.notebooks import walkthrough as notebook
from ui.notebooks.offer import offer
from ui.work.traces import TraceKey, sentence_trace


def rows(asked: list[dict]) -> list[tuple[int, str, int, str]]:
    """(number, prompt in this run's language, how many answered, the share right) a question."""
    out = []
    for number, entry in enumerate(asked, start=1):
        total = sum(entry["counts"])
        right = "–" if not total else f"{entry['counts'][entry['answer']] / total:.0%}"
        prompt = questions.prompt(entry)
        if entry["kind"] == "shape":  # "the shape of this step's result": which step, then
            prompt = f"{labeller('walkthrough.step')(entry['params']['step'])} · {prompt}"
        out.append((number, prompt, total, right))
    return out


def header() -> tuple[str, str, str, str]:
    return ("#", t("room.summary_question"), t("room.summary_answers"), t("room.summary_right"))


def as_csv(table: list[tuple]) -> bytes:
    text = io.StringIO()
    csv.writer(text).writerows([header(), *table])
    return text.getvalue().encode("utf-8-sig")  # (a BOM: Excel reads the Chinese)


def as_markdown(table: list[tuple], lang: str) -> str:
    """The summary as the class notebook's second cell: a heading and a line per question."""
    lines = [f"## {t('room.summary_notebook_heading', lang)}", ""]
    colon = "：" if lang == "zh" else ": "
    for n, p, a, r in table:
        line = t("room.summary_line", lang, answers=a, right=r)
        lines.append(f"{n}. {markdown_text(p)}{colon}{line}")
    return "\n".join(lines)


def _trace(settings):
    """The room's sentence under its settings (cached: the teacher's page made it), or None
    when it cannot run (the page says why)."""
    try:
        return sentence_trace(TraceKey.of(settings))
    except core.InputError:
        return None


def show(code: str, room: dict, counts_now: list[int] | None, settings) -> None:
    """The questions filed so far, and the current one with its answers so far; the summary as
    CSV, and the class notebook (the room's sentence and settings, made when it is pressed)."""
    asked = list(room.get("asked", []))
    if room["question"] and counts_now is not None:
        asked.append({**room["question"], "counts": counts_now})
    with st.expander(t("room.summary", n=len(asked))):
        if not asked:
            st.caption(t("room.summary_none"))
            return
        table = rows(asked)
        for n, p, a, r in table:  # a line each, not a table: the sidebar is narrow
            st.markdown(f"**{n}.** {markdown_text(p)}")
            st.caption(t("room.summary_line", answers=a, right=r))
        st.download_button(
            t("room.summary_csv"), as_csv(table), file_name=f"class-{code}.csv",
            mime="text/csv", key="room_summary_csv",
        )  # fmt: skip
        data = _trace(settings)
        if data is not None:  # the walkthrough's notebook of the room's sentence, summary inside
            build = partial(
                notebook.build, data, settings, settings.lang, as_markdown(table, settings.lang)
            )
            offer(build, f"class-{code}.ipynb", label=t("room.summary_notebook"))
