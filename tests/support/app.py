"""Helpers for AppTest: run the app, read a Plotly chart's data back as NumPy, find a widget."""

import base64
import json
import re

import numpy as np
from streamlit.testing.v1 import AppTest

from tests.support import ROOT
from ui.shell.registry import PAGES as REGISTRY
from ui.shell.registry import script_path

PAGE_FILES = {page.script: script_path(page.script) for page in REGISTRY}


def run_app(page: str = "walkthrough", **query) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = str(value)
    at.run()
    if page != "walkthrough":
        at.switch_page(PAGE_FILES[page]).run()
    return at


def decode(value):
    """Plotly 7 stores arrays as {"dtype", "bdata", "shape"}; plain lists pass through."""
    if isinstance(value, dict) and "bdata" in value:
        array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = [int(s) for s in str(value.get("shape", len(array))).split(",")]
        return array.reshape(shape)
    return np.asarray(value)


def charts(at: AppTest) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def chart_titled(at: AppTest, prefix: str) -> dict:
    for spec in charts(at):
        if spec["layout"].get("title", {}).get("text", "").startswith(prefix):
            return spec
    raise AssertionError(f"no chart titled {prefix!r}")


def grids(at: AppTest) -> list:
    """Every table the page drew, in page order, as pandas DataFrames: ui/kit/tables.py's (a
    static st.table) and any st.dataframe alike."""
    return [node.value for node in at.main if node.type in ("dataframe", "table")]


def page_text(at: AppTest) -> str:
    kinds = ("title", "subheader", "markdown", "caption", "info", "success", "warning", "error")
    return "\n".join(element.value for kind in kinds for element in getattr(at, kind))


def run_until(at: AppTest, arrived, timeout: float = 120) -> AppTest:
    """Rerun until ``arrived(at)`` holds: for what a page draws once the server's shared
    measurement (measure/queue.py, a child process) has finished, as its fragment would."""
    import time

    deadline = time.monotonic() + timeout
    while not arrived(at):
        assert time.monotonic() < deadline, "the shared measurement never arrived"
        time.sleep(0.5)
        at.run()
    return at


def has_chart(prefix: str):
    return lambda at: any(
        spec["layout"].get("title", {}).get("text", "").startswith(prefix) for spec in charts(at)
    )


def slider(at: AppTest, key: str):
    return next(s for s in at.slider if s.key == key)


def player_button(at: AppTest, key: str):
    """A step-through player's play button (ui/kit/player.py)."""
    return next(b for b in at.button if b.key == f"{key}_button")


def colour_range(spec: dict) -> tuple[float, float]:
    """A heatmap's (zmin, zmax): charts drawn on one colour range share it."""
    trace = spec["data"][0]
    return trace["zmin"], trace["zmax"]


def chart_range(at: AppTest, key: str) -> tuple[float, float]:
    """The colour range of the chart drawn with widget key ``key``."""
    index = [chart.key for chart in at.get("plotly_chart")].index(key)
    return colour_range(charts(at)[index])


def room_opened(lang: str = "en") -> tuple[AppTest, str, str]:
    """A room opened on the room page: (that page's AppTest, the room's code, the teacher's key),
    the code and key read from the links the page hands out."""
    at = run_app("room", lang=lang)
    at.button(key="room_open").click().run()
    assert not at.exception
    students = next(c.value for c in at.code if "?room=" in c.value and "key=" not in c.value)
    teacher = next(c.value for c in at.code if "key=" in c.value)
    code = re.search(r"room=([A-Z0-9]+)", students).group(1)
    key = re.search(r"key=([\w-]+)", teacher).group(1)
    return at, code, key
