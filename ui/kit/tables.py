"""A table of printed values, given by its columns, drawn across the page with no index.

Drawn as Streamlit's static table, not its data grid: the grid draws on a canvas at 13 px, which
a projector's large-text mode cannot enlarge (the back row could not read it), cuts a phone's
wide rows off behind a sideways swipe, and puts a toolbar in English over its headings ("Download
as CSV", "Search"). The static table's text is the page's text: its size follows the page's, and
its cells wrap."""

import pyarrow as pa
import streamlit as st


def table(columns: dict, **options) -> None:
    """``columns``: {header: [text, ...]}. Sent as an Arrow table, which is what Streamlit sends
    anyway: building a pandas DataFrame and converting it cost ~0.85 ms a table on every rerun,
    Arrow's own table ~0.07 ms (issue 24: a class's reruns). ``options``: st.table's (height)."""
    st.table(pa.table(columns), hide_index=True, **{"width": "stretch", **options})
