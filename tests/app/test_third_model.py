"""A third decoder opens on every model page with no change to the app (issue 65): a tiny random
llama model with biases and grouped-query attention, written by gguf's writer and registered in
this test alone (tests/support/third_model.py), is offered by the model picker beside Gemma and
SmolLM2, and /generate and /inside draw on it in both languages, their numbers its own: the bars'
first token is its argmax, the lens's last row its logits', the cache's size its K/V heads'."""

import numpy as np
import pytest

import core
from tests.support.app import page_text, run_app
from tests.support.numbers import numbers
from tests.support.third_model import NAME, third_model
from ui.kit.session import INSIDE_RANKS
from ui.shell.registry import PAGES
from ui.views.inside.names import piece
from ui.work import model_load

PROMPT = "the cat at the inn"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    with third_model(tmp_path_factory.mktemp("third")) as row:
        model_load.start(NAME)  # its pages' background load, done before any test draws them
        model_load.model(NAME)  # (each test alone, not only after the first)
        yield row, core.load_decoder(NAME)


def test_every_model_page_opens_on_it(tiny):
    model_pages = [page.script for page in PAGES if page.model]
    assert len(model_pages) == 2
    for page in ("generate", "inside"):
        for lang in ("en", "zh"):
            at = run_app(page, lang=lang, model=NAME, gen_prompt=PROMPT, in_prompt=PROMPT)
            assert not at.exception, (page, lang, at.exception)
            assert not at.error, (page, lang, [e.value for e in at.error])
            assert at.button_group(key="model").value == NAME  # picked, beside the others
            assert "Tiny Llama (test)" in at.button_group(key="model").proto.options[-1].content


def test_generate_bars_and_cache_are_its_own(tiny):
    _, model = tiny
    at = run_app("generate", lang="en", model=NAME, gen_prompt=PROMPT, written=1)
    assert not at.exception
    ids = model.encode(PROMPT)
    trace = model.forward(ids)
    first = int(np.argmax(trace.logits[-1]))
    assert at.session_state["gen_text_so_far"] == PROMPT + model.decode([first])  # greedy
    c = model.config
    line = next(x for x in page_text(at).splitlines() if x.startswith("The cache holds"))
    assert numbers(line)[:3] == [len(ids) + 1, c.n_layers, c.n_kv_heads * c.head_dim]


def test_inside_lens_reads_its_own_head(tiny):
    _, model = tiny
    at = run_app("inside", lang="en", model=NAME, in_prompt=PROMPT)
    assert not at.exception
    logits = model.forward(model.encode(PROMPT)).logits[-1]
    top = piece(model, int(np.argmax(logits)))  # its last layer's first piece, as pages print it
    answer, ranks = at.session_state[INSIDE_RANKS]  # what the lens section drew
    assert answer == top and ranks[-1] == 1 and len(ranks) == model.config.n_layers + 1
    assert any(top in s.value for s in at.success)  # the lens's story names it
