"""The end-of-class summary: each question asked, its answers and the share right (anonymous:
counts only), on the teacher's sidebar and as CSV."""

import pandas as pd
import streamlit as st

from ui import questions
from ui.i18n import t


def table(asked: list[dict]) -> pd.DataFrame:
    """One row a question: its prompt in this run's language, how many answered, the share right."""
    rows = []
    for number, entry in enumerate(asked, start=1):
        total = sum(entry["counts"])
        right = entry["counts"][entry["answer"]] / total if total else None
        rows.append(
            {
                "#": number,
                t("room_summary_question"): questions.prompt(entry),
                t("room_summary_answers"): total,
                t("room_summary_right"): "–" if right is None else f"{right:.0%}",
            }
        )
    return pd.DataFrame(rows)


def show(code: str, room: dict, counts_now: list[int] | None) -> None:
    """The questions filed so far, and the current one with its answers so far."""
    asked = list(room.get("asked", []))
    if room["question"] and counts_now is not None:
        asked.append({**room["question"], "counts": counts_now})
    with st.expander(t("room_summary", n=len(asked))):
        if not asked:
            st.caption(t("room_summary_none"))
            return
        frame = table(asked)
        st.dataframe(frame, hide_index=True)
        st.download_button(
            t("room_summary_csv"),
            frame.to_csv(index=False).encode("utf-8-sig"),  # (a BOM: Excel reads the Chinese)
            file_name=f"class-{code}.csv",
            mime="text/csv",
            key="room_summary_csv",
        )
