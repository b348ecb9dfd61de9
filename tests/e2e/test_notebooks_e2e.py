"""Take the lesson home (issue 57), as a learner does it: each page's "Jupyter notebook" button
pressed in the browser, in both languages, the file it gives executed top to bottom in a real
kernel (nbclient, ipykernel), and what it saved compared with the page's own computation for the
view in the address: the random-weight steps to 1e-12, the tiny model's loss curve bit for bit,
the decoder's tokens and bars to the app's own tolerance."""

import json

import nbclient
import nbformat
import numpy as np
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from core.lessons import hand_example
from core.trace import FIELDS
from scheduling.training import Settings as TrainSettings
from scheduling.training import child_lines
from tests.support import ROOT
from ui.kit.i18n import DEFAULT_BATCH, t
from ui.kit.settings import Settings
from ui.notebooks.cells import SAVED
from ui.views.hand_check.text import hand_trace
from ui.work.traces import TraceKey, batch_trace, sentence_trace

SENTENCES = {"zh": "我 喜欢 学习 语言 模型", "en": "the cat sat on mats"}
PROMPTS = {"zh": "太阳系有八大", "en": "The capital of France is"}
TRAIN = "tr_task=repeat&tr_d_model=16&tr_heads=2&tr_layers=1&tr_steps=50&tr_seed=3"
GENERATE = "gen_mode=sample&gen_seed=7&gen_t=0.8&gen_k=40&written=2"


def _download(s, lang, tmp_path, kind):
    """Press the page's notebook button; execute the file it gives; its cells and saved arrays."""
    s.wait_idle(timeout=120000)
    button = s.page.get_by_test_id("stDownloadButton").filter(has_text=t("notebook.download", lang))
    button.first.wait_for(timeout=120000)  # visible: no folded section opened first
    for attempt in range(3):  # a press during a rerun the page was still finishing asks again
        try:
            with s.page.expect_download(timeout=20000) as download:
                button.first.click()
            break
        except PlaywrightTimeout:
            assert attempt < 2, f"{kind}: no file after three presses"
            s.wait_idle()
    book = nbformat.read(download.value.path(), as_version=4)
    folder = tmp_path / kind
    folder.mkdir()
    nbclient.NotebookClient(book, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(folder)}}).execute()  # fmt: skip
    return book, np.load(folder / SAVED)


def _same(saved, trace):
    for name in FIELDS:
        np.testing.assert_allclose(saved[name], getattr(trace, name), rtol=0, atol=1e-12,
                                   err_msg=name)  # fmt: skip


@pytest.mark.e2e
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_each_pages_notebook_downloaded_and_run(session, lang, tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # /generate's notebook finds the app's core/
    s = session(width=1400, height=900)
    sentence = SENTENCES[lang]

    s.open(f"/?lang={lang}&step=softmax&sentence={sentence.replace(' ', '+')}")
    # the button where every page has it, not in the folded data section (issue 65)
    book, saved = _download(s, lang, tmp_path, "walkthrough")
    _same(saved, sentence_trace(TraceKey.of(Settings(lang=lang, sentence=sentence))).trace)
    assert sentence in book.cells[0].source

    s.open(f"/masks?lang={lang}")
    _, saved = _download(s, lang, tmp_path, "masks")
    lines = tuple(line for line in DEFAULT_BATCH[lang].splitlines() if line.strip())[:3]
    _same(saved, batch_trace(lines, TraceKey.of(Settings(lang=lang)), "both").trace)

    s.open(f"/hand-check?lang={lang}&hand_causal=true")
    _, saved = _download(s, lang, tmp_path, "hand")
    _same(saved, hand_trace(hand_example.example(4), True))

    s.open(f"/train?lang={lang}&{TRAIN}")
    _, saved = _download(s, lang, tmp_path, "train")
    run = TrainSettings("repeat", d_model=16, n_heads=2, n_layers=1, steps=50, seed=3)
    assert np.array_equal(saved["loss"], [json.loads(line)["loss"] for line in child_lines(run)])

    from ui.views.generate.next_token import label
    from ui.work.decoding import Rules, candidates_at, decoder, written

    prompt = PROMPTS[lang]
    s.open(f"/generate?lang={lang}&{GENERATE}&gen_prompt={prompt.replace(' ', '+')}")
    book, saved = _download(s, lang, tmp_path, "generate")
    model, rules = decoder("gemma3-270m"), Rules(0.8, 40, 1.0, True, 7)
    ids = tuple(model.encode(prompt))
    page = written(model, ids, rules, 2)
    assert list(saved["written"]) == list(page.tokens)
    top = candidates_at(model, (*ids, *page.tokens), len(ids), rules)
    assert list(saved["top_ids"]) == list(top.ids)
    np.testing.assert_allclose(saved["top_q"], top.q, rtol=0, atol=2e-4)  # batched steps' rounding
    assert list(saved["top_pieces"]) == [label(model, i) for i in top.ids]  # the bars' labels
    s.assert_healthy()
