"""The walkthrough as a Jupyter notebook (issue 57): the page offers it, and the notebook, made in
each language, runs top to bottom in a real kernel (nbclient, ipykernel) and rebuilds every
intermediate the page's trace holds to 1e-12, from the inputs it carries and core/reference.py's
own lines; a hostile sentence runs and prints literally."""

import numpy as np
import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

from core.trace import FIELDS  # noqa: E402
from tests.support.app import run_app  # noqa: E402
from ui.kit.settings import Settings  # noqa: E402
from ui.kit.traces import TraceKey, sentence_trace  # noqa: E402
from ui.views.walkthrough import notebook  # noqa: E402


def _run(data, settings, lang, folder):
    book = nbformat.reads(notebook.build(data, settings, lang).decode("utf-8"), as_version=4)
    nbclient.NotebookClient(book, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(folder)}}).execute()  # fmt: skip
    return book, np.load(folder / notebook.SAVED)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("mask", ["none", "causal"])
def test_the_notebook_rebuilds_the_pages_trace(tmp_path, lang, mask):
    settings = Settings(lang=lang, sentence="这 部 电影 很 好看", d_model=8, n_heads=2, mask=mask)
    data = sentence_trace(TraceKey.of(settings))
    book, saved = _run(data, settings, lang, tmp_path)
    for name in FIELDS:
        expected = getattr(data.trace, name)
        np.testing.assert_allclose(saved[name], expected, rtol=0, atol=1e-12, err_msg=name)
    first = book.cells[0].source
    assert ("一步步看懂自注意力" in first) == (lang == "zh") and "这 部 电影 很 好看" in first
    printed = "".join(o.get("text", "") for c in book.cells if c.cell_type == "code"
                      for o in c.get("outputs", []))  # fmt: skip
    assert "A (2, 5, 5)" in printed  # each step's shape, for the screen


def test_a_hostile_sentence_runs_and_prints_literally(tmp_path):
    sentence = '<script>alert(1)</script> "quoted" back\\slash """ end'
    settings = Settings(lang="en", sentence=sentence, mode="space", d_model=4, n_heads=1)
    data = sentence_trace(TraceKey.of(settings))
    book, saved = _run(data, settings, "en", tmp_path)
    printed = book.cells[3].outputs[0]["text"]
    assert printed.splitlines()[0] == repr(list(data.tokens))
    np.testing.assert_allclose(saved["A"], data.trace.A, rtol=0, atol=1e-12)


def test_the_walkthrough_offers_it_in_both_languages():
    for lang, label in (("en", "Jupyter notebook"), ("zh", "Jupyter 笔记本")):
        at = run_app(lang=lang, step="softmax")
        buttons = [b for b in at.get("download_button") if label in str(b.proto)]
        assert buttons and not at.exception
