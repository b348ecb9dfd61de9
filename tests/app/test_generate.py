"""The generate page in AppTest: what it prints and draws against the model run here in the test
(its own forward pass, softmax and argmax), the rules' controls and the URL, writing with Next,
the same seed writing the same text, and bad input kept in the box with a message."""

import re

import numpy as np
import pytest

from tests.support.app import charts, decode, page_text, run_app
from tests.support.numbers import power_of_ten_value


def _bars(at) -> dict:
    return next(c for c in charts(at) if "10" in str(c["layout"]["title"]["text"]))


def _softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum()


def _text_so_far(at) -> str:
    line = next(m.value for m in at.markdown if m.value.startswith(("**Text so far:**", "**目前")))
    text = re.sub(r"^\*\*[^*]+\*\*[:：]?", "", line)  # the label, in either language
    return re.sub(r"<[^>]+>", "", text).replace("\\", "").strip()  # the newest token's <b>


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_bars_are_the_models_own_probabilities(gemma, lang):
    at = run_app("generate", lang=lang)
    assert not at.exception
    prompt = at.text_area(key="gen_prompt").value
    logits = gemma.forward(gemma.encode(prompt)).logits[-1].astype(np.float64)
    p = _softmax(logits)
    top = np.argsort(-p)[:10]
    y = np.array(_bars(at)["data"][0]["y"])
    np.testing.assert_allclose(y, p[top], atol=1e-5)
    labels = _bars(at)["data"][0]["x"]
    assert labels[0] == gemma.decode([int(top[0])])  # the most likely first, as text


def test_temperature_and_top_k_reshape_the_bars(gemma):
    at = run_app("generate", lang="en", gen_t="0.5", gen_k="3")
    logits = gemma.forward(gemma.encode("The cat sat on the")).logits[-1].astype(np.float64)
    p = _softmax(logits / 0.5)
    y = np.array(_bars(at)["data"][0]["y"])
    np.testing.assert_allclose(y, np.sort(p)[::-1][:10], atol=1e-5)
    colours = _bars(at)["data"][0]["marker"]["color"]
    assert len(set(colours[:3])) == 1 and set(colours[3:]) - {
        colours[0]
    }  # three kept, the rest cut
    assert "3 of 262144 tokens kept" in page_text(at).replace(",", "")


def test_next_appends_the_greedy_token_through_the_cache(gemma):
    at = run_app("generate", lang="en")
    ids = gemma.encode("The cat sat on the")
    expected = []
    trace = gemma.forward(ids)
    for _ in range(3):
        expected.append(int(trace.logits[-1].argmax()))
        trace = gemma.forward([expected[-1]], trace.cache)
    for _ in range(3):
        at.button(key="gen_next").click().run()
    assert not at.exception
    assert _text_so_far(at) == "The cat sat on the" + gemma.decode(expected)
    assert at.slider(key="gen_written").value == 3
    assert "The cache holds 9 positions" in page_text(at)  # <bos>, 5 pieces, 3 written


def test_a_link_opens_with_tokens_written_and_the_same_seed_writes_the_same_text():
    link = {"lang": "zh", "gen_mode": "sample", "gen_seed": "11", "written": "6"}
    first, again = run_app("generate", **link), run_app("generate", **link)
    other = run_app("generate", **{**link, "gen_seed": "12"})
    assert _text_so_far(first) == _text_so_far(again)
    assert _text_so_far(first) != _text_so_far(other)
    assert _text_so_far(first).startswith("今天天气很好，我们一起去")


def test_training_rows_match_one_pass_and_one_at_a_time(gemma):
    at = run_app("generate", lang="en", gen_prompt="Attention is all you need.")
    ids = gemma.encode("Attention is all you need.")
    logits = gemma.forward(ids).logits.astype(np.float64)
    p = [_softmax(row)[target] for row, target in zip(logits[:-1], ids[1:])]
    table = next(d.value for d in at.dataframe if "p(target), one pass" in d.value.columns)

    def numbers(column):
        return np.array([power_of_ten_value(cell) for cell in table[column]])  # 5 × 10⁻⁵

    shown = numbers("p(target), one pass")
    np.testing.assert_allclose(shown, p, atol=1e-4)
    np.testing.assert_allclose(numbers("p(target), one at a time"), p, atol=1e-3)
    loss = float(-np.mean(np.log(p)))
    assert f"= {loss:.3f}" in page_text(at)


def test_the_attention_map_has_exact_zeros_above_the_diagonal(gemma):
    at = run_app("generate", lang="en", gen_layer="0", gen_head="2")
    ids = gemma.encode("The cat sat on the")
    A = gemma.forward(ids).A[0][2]
    spec = next(
        c for c in charts(at) if str(c["layout"]["title"]["text"]).startswith("Attention in")
    )
    z = decode(spec["data"][0]["z"])
    np.testing.assert_allclose(np.nan_to_num(z, nan=0.0), A, atol=1e-4)
    assert "Layer 0 is local" in page_text(at)


@pytest.mark.parametrize(
    ("prompt", "says"),
    [
        ("   ", "Type a prompt"),
        ("x" * 2001, "2001 characters"),
        ("a" + "\x00\x1b" + "b", "2 control characters"),
        ("<bos> hello <eos>", "<bos>, <eos> typed in the prompt are read as ordinary text"),
        ("好 " * 300, "the page reads at most 256"),
    ],
)
def test_bad_input_is_explained_and_the_text_stays(prompt, says):
    at = run_app("generate", lang="en")
    at.text_area(key="gen_prompt").input(prompt).run()
    assert not at.exception
    assert says in page_text(at).replace("\\", "")
    assert at.text_area(key="gen_prompt").value == prompt


def test_chinese_bad_input_is_said_in_chinese():
    at = run_app("generate", lang="zh")
    at.text_area(key="gen_prompt").input("").run()
    assert "请输入一段提示词" in page_text(at)


def test_a_teacher_asks_the_class_which_token_comes_next(gemma):
    import ui.room.connection as room

    opened = run_app("room", lang="en")
    opened.button(key="room_open").click().run()
    code, key = opened.session_state["room_opened"]
    teacher = run_app("generate", room=code, key=key, lang="en")
    assert teacher.selectbox(key="q_kind_generate").value == "next_token"
    teacher.button(key="room_ask").click().run()
    question = room.rooms().get(code)["question"]
    logits = gemma.forward(gemma.encode("The cat sat on the")).logits[-1].astype(np.float64)
    p = _softmax(logits)
    top = np.argsort(-p)[:4]
    assert [label for label, _ in question["choices"]][question["answer"]] == gemma.decode([top[0]])
    assert sorted(label for label, _ in question["choices"]) == sorted(
        gemma.decode([i]) for i in top
    )
    assert question["params"]["text"].endswith("sat on the")
    student = run_app(room=code, lang="zh")
    assert not student.exception
    assert "模型在“" in page_text(student) and "后面接着写哪个 token" in page_text(student)
    teacher.button(key="room_reveal").click().run()
    shown = " ".join(c.value for c in teacher.code)
    assert f"{gemma.decode([top[0]])}: p = {p[top[0]]:.3f}" in shown  # the model's probabilities


def test_numbering_from_one_reaches_layers_and_positions():
    at = run_app("generate", lang="zh", base="1", written="2")
    assert not at.exception
    assert at.selectbox(key="gen_layer").options[:2] == ["1", "2"]
    positions = next(d.value for d in at.dataframe if "位置" in d.value.columns).iloc[:, 0]
    assert list(positions[:2]) == ["1", "2"]
    text = page_text(at)
    assert "层 18 是全局层" in text and "进入层 1 的那一行" in text
