"""The model choice on /generate and /inside (issue 56): SmolLM2-135M beside Gemma, in the URL
(model=) and a room's view; each figure the pages print for SmolLM2 read back against this test's
own computation with its weights (its 30 × 9 heads' induction scores by loops, the lens through
its own final norm and head, its cache's bytes); a switch of model drops the other model's layer
and heads; a model the URL names wrongly is said, and Gemma opens."""

import numpy as np
import pytest

from core.lessons.model_reading import repeated_tokens
from tests.support.app import grids, page_text, room_opened, run_app
from tests.support.numbers import numbers
from tests.support.oracles import induction_by_hand

SMOL = "smollm2-135m"
ENGLISH = "French: fleur, English: flower. French: montagne, English:"


@pytest.fixture(scope="module", autouse=True)
def smollm2_loaded():
    """SmolLM2 loaded before the pages ask for it, as after a first learner chose it (a page's
    first choice shows the load's wait, which AppTest, with no browser's timer, would not rerun)."""
    from ui.work import model_load

    model_load.start(SMOL)
    model_load.model(SMOL)


@pytest.fixture(scope="module")
def inside_page(smollm2, smollm2_loaded):
    return run_app("inside", lang="en", model=SMOL, in_prompt=ENGLISH)


def _softmax(row):
    row = np.asarray(row, dtype=np.float64)
    e = np.exp(row - row.max())
    return e / e.sum()


def test_the_gallery_finds_smollm2s_induction_heads(smollm2, inside_page):
    assert not inside_page.exception
    ids = repeated_tokens(smollm2, 0)
    induction = induction_by_hand(smollm2.forward(ids).A, ids)  # [30, 9], by loops
    table = next(d for d in grids(inside_page) if "induction" in d.columns)
    order = np.argsort(-induction.ravel(), kind="stable")
    for row in range(5):
        layer, head = divmod(int(order[row]), 9)
        assert table["head"].iloc[row] == f"L{layer + 1} H{head + 1}"
        assert float(table["induction"].iloc[row]) == pytest.approx(
            induction[layer, head], abs=6e-4
        )
    print("SmolLM2's strongest induction heads:", list(table["head"].iloc[:5]),
          list(table["induction"].iloc[:5]))  # fmt: skip
    assert "All 30 × 9 heads" in page_text(inside_page)


def test_the_lens_reads_through_smollm2s_own_final_norm_and_head(smollm2, inside_page):
    run = smollm2.forward(smollm2.encode(ENGLISH), residuals=True)
    head = smollm2.E if smollm2.head is None else smollm2.head  # SmolLM2 ties them
    table = next(d for d in grids(inside_page) if "read after" in d.columns)
    rows = [row.replace("\u00a0", " ") for row in table["read after"]]  # (no-break spaces)
    assert rows == ["embedding"] + [f"layer {i}" for i in range(1, 31)]
    for layer in (0, 15, 29, 30):
        x = run.H[layer][-1].astype(np.float64)
        normed = x / np.sqrt(np.mean(x * x) + smollm2.config.eps) * smollm2.final_norm
        p = _softmax(head.astype(np.float64) @ normed)
        top = int(np.argmax(p))
        cell = table.iloc[layer, 1]
        assert float(cell.split()[-1]) == pytest.approx(p[top], abs=6e-4), cell  # (no-break)
    assert "vocabulary of 49,152 tokens" in page_text(inside_page)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_generate_writes_with_smollm2_and_says_its_cache(smollm2, lang):
    prompt = "The capital of France is"
    at = run_app("generate", lang=lang, model=SMOL, gen_prompt=prompt, written=2)
    assert not at.exception
    ids = smollm2.encode(prompt)
    assert ids[0] != 2 or smollm2.pieces(ids)[0] != "<bos>"  # no <bos>: SmolLM2 adds none
    trace, written = smollm2.forward(ids), []
    for _ in range(2):  # greedy, the page's default, through the cache
        written.append(int(np.argmax(trace.logits[-1])))
        trace = smollm2.forward([written[-1]], trace.cache)
    assert smollm2.decode(written) == " Paris."  # (transformers' greedy on the same GGUF)
    assert at.session_state["gen_text_so_far"] == prompt + " Paris."  # the text the page shows
    text = page_text(at)
    c, positions = smollm2.config, len(ids) + 2
    line = next(x for x in text.splitlines() if x.startswith(("The cache holds", "缓存里有")))
    assert numbers(line)[:4] == [positions, c.n_layers, c.n_kv_heads * c.head_dim, 4]
    assert ("三分之一" in line) if lang == "zh" else ("1/3 of the" in line)
    size = positions * c.n_layers * 2 * c.n_kv_heads * c.head_dim * 4
    assert size == sum(K.nbytes + V.nbytes for K, V in zip(trace.cache.K, trace.cache.V))
    assert at.selectbox(key="gen_layer").value == 29  # its own last layer


def test_a_switch_of_model_drops_the_other_models_layer_and_heads_off():
    at = run_app("generate", lang="en", model=SMOL, gen_layer=25)
    assert at.selectbox(key="gen_layer").value == 25
    at.button_group(key="model").set_value("gemma3-270m").run()
    assert not at.exception and at.selectbox(key="gen_layer").value == 17  # Gemma's last
    assert "gen_layer" not in at.query_params
    inside = run_app("inside", lang="en", off="6.2,25.8", model=SMOL)
    assert inside.session_state["in_off"] == ["6.2", "25.8"]
    inside.button_group(key="model").set_value("gemma3-270m").run()
    assert not inside.exception and not inside.session_state["in_off"]
    assert "off" not in inside.query_params


def test_a_room_follows_the_teachers_model():
    _, code, key = room_opened()
    run_app("generate", room=code, key=key, lang="en", model=SMOL)
    student = run_app("generate", room=code, lang="zh")
    assert student.session_state["model"] == SMOL
    assert "SmolLM2-135M" in page_text(student) and not student.exception


@pytest.mark.parametrize(("lang", "said"), [("en", "gpt5"), ("zh", "gpt5")])
def test_a_model_the_url_names_wrongly_is_said_and_gemma_opens(lang, said):
    at = run_app("generate", lang=lang, model=said)
    assert not at.exception and at.session_state["model"] == "gemma3-270m"
    assert any(said in w.value for w in [*at.warning, *at.error, *at.info]), page_text(at)[:500]
