"""Questions from the numbers on screen: each answer checked against an independent computation."""

import math
from decimal import Decimal

import numpy as np
import pytest

import core
from core.lessons.number_text import printed_sum
from core.lessons.questions import KINDS, PAGE_KINDS, STEP_KINDS, make_question, next_token_question


def _case(causal: bool, seed: int = 0):
    rng = np.random.default_rng(seed)
    n, d_model, h = 5, 8, 2
    X = rng.normal(size=(n, d_model))
    W = core.init_weights(core.AttentionConfig(d_model=d_model, n_heads=h, seed=seed))
    mask = core.causal_mask(n) if causal else None
    trace = core.attention(X, W, h, mask)
    fields = {name: getattr(trace, name) for name in ("Q", "K", "V", "A", "output")}
    return fields, list("abcde"), mask, X, W


def _label(question, index):
    return question.choices[index][0]


@pytest.mark.parametrize("seed", range(5))
def test_a_score_cells_answer_is_q_i_dot_k_j_over_root_d_k(seed):
    fields, tokens, mask, X, W = _case(False, seed)
    q = make_question("score_cell", "scaled", fields, tokens, 1, 3, mask, seed=seed)
    i, j, d_k = q.params["i"], q.params["j"], q.params["d_k"]
    Q = X @ W.W_Q[:, d_k : 2 * d_k]  # head 1, from X and W_Q directly
    K = X @ W.W_K[:, d_k : 2 * d_k]
    expected = float(Q[i] @ K[j]) / math.sqrt(d_k)
    assert _label(q, q.answer) == f"{expected:.2f}".replace("-", "−")
    assert len(set(q.choices)) == len(q.choices) >= 2


def test_the_top_key_is_the_largest_allowed_weight():
    fields, tokens, mask, _, _ = _case(True)
    for i in range(5):
        q = make_question("top_key", "softmax", fields, tokens, 0, i, mask)
        row = np.where(np.asarray(mask)[i], fields["A"][0, i], -1)
        assert _label(q, q.answer) == f"{int(np.argmax(row))} · {tokens[int(np.argmax(row))]}"
        assert all(int(label.split(" · ")[0]) <= i for label, _ in q.choices)  # no future key


@pytest.mark.parametrize(
    "causal, right", [(True, "room.q_mask_above"), (False, "room.q_mask_none")]
)
def test_the_masked_cells_answer_follows_the_mask(causal, right):
    fields, tokens, mask, _, _ = _case(causal)
    q = make_question("masked_cells", "mask", fields, tokens, 0, 0, mask, seed=3)
    assert q.choices[q.answer][1] == right


def test_a_rows_sum_is_1():
    fields, tokens, mask, _, _ = _case(True)
    q = make_question("row_sum", "softmax", fields, tokens, 0, 4, mask, seed=1)
    assert _label(q, q.answer) == "1"
    sum_line = q.worked[0]  # the parts as printed add up to the total printed, exactly
    parts, total = sum_line.split(" = ")[0].split(" + "), sum_line.split(" = ")[1].split(" ≈ ")
    assert sum(Decimal(p) for p in parts) == Decimal(total[0])
    assert sum_line.endswith("= 1.0000") or sum_line.endswith(" ≈ 1.0000")  # the true sum: 1


def test_a_sum_of_rounded_parts_says_its_true_sum_beside_it():
    row = np.array([1 / 3, 1 / 3, 1 / 3])  # 0.3333 × 3 = 0.9999
    parts, total = printed_sum(row, 4)
    assert (parts, total) == (["0.3333"] * 3, "0.9999")
    fields = {"A": row[None, None, :].repeat(3, axis=1), "output": np.zeros((3, 2))}
    fields |= {"Q": np.zeros((1, 3, 2)), "V": np.zeros((1, 3, 2))}
    q = make_question("row_sum", "softmax", fields, list("abc"), 0, 2, np.ones((3, 3), bool))
    assert q.worked == ("0.3333 + 0.3333 + 0.3333 = 0.9999 ≈ 1.0000",)


@pytest.mark.parametrize("step", list(STEP_KINDS))
def test_the_shape_of_each_steps_result(step):
    fields, tokens, mask, _, _ = _case(False)
    q = make_question("shape", step, fields, tokens, 0, 0, mask, seed=2)
    expected = {"qkv": "5 × 4", "av": "5 × 4", "heads": "5 × 8"}.get(step, "5 × 5")
    assert _label(q, q.answer) == expected


def test_every_step_can_ask_something_and_every_kind_is_asked_somewhere():
    asked = [*STEP_KINDS.values(), *PAGE_KINDS.values()]
    assert {kind for kinds in asked for kind in kinds} == set(KINDS)


def test_the_next_token_question_answers_with_the_most_likely_and_lists_every_probability():
    q = next_token_question(
        ["逛逛", "玩", "吃饭", "看"], [0.31, 0.2, 0.1, 0.05], "我们一起去", seed=4
    )
    assert _label(q, q.answer) == "逛逛"
    assert sorted(label for label, _ in q.choices) == sorted(["逛逛", "玩", "吃饭", "看"])
    assert "逛逛: p = 0.310" in q.worked and len(q.worked) == 4


@pytest.mark.parametrize("seed", range(5))
def test_a_dot_cells_answer_is_q_i_dot_k_j_not_yet_scaled(seed):
    fields, tokens, mask, X, W = _case(False, seed)
    q = make_question("dot_cell", "scores", fields, tokens, 1, 3, mask, seed=seed)
    i, j, d_k = q.params["i"], q.params["j"], q.params["d_k"]
    Q = X @ W.W_Q[:, d_k : 2 * d_k]
    K = X @ W.W_K[:, d_k : 2 * d_k]
    assert _label(q, q.answer) == f"{float(Q[i] @ K[j]):.2f}".replace("-", "−")
    assert not any("÷ √" in line for line in q.worked)  # S itself, before the scaling


@pytest.mark.parametrize("seed", range(5))
def test_an_output_cells_answer_is_row_i_of_a_times_column_c_of_v(seed):
    fields, tokens, mask, X, W = _case(True, seed)
    q = make_question("output_cell", "av", fields, tokens, 0, 3, mask, seed=seed)
    i, c = q.params["i"], q.params["c"]
    d_k = 4
    Q, K, V = (X @ M[:, :d_k] for M in (W.W_Q, W.W_K, W.W_V))
    S = np.where(np.asarray(mask), Q @ K.T / math.sqrt(d_k), -np.inf)
    A = np.exp(S - S.max(1, keepdims=True))
    A /= A.sum(1, keepdims=True)
    assert _label(q, q.answer) == f"{float(A[i] @ V[:, c]):.2f}".replace("-", "−")


def test_each_step_asks_first_about_its_own_result():
    assert STEP_KINDS["scores"][0] == "dot_cell"  # S = QKᵀ, not the next step's S / √d_k
    assert STEP_KINDS["scaled"][0] == "score_cell"
    assert STEP_KINDS["av"][0] == "output_cell"  # a number of O, not a weight of A


def test_every_question_has_one_line_of_why_in_both_languages():
    import tomllib

    from tests.support import ROOT

    strings = tomllib.loads((ROOT / "assets/strings/room.toml").read_text("utf-8"))
    for causal in (True, False):
        fields, tokens, mask, _, _ = _case(causal)
        asked = [
            make_question(k, s, fields, tokens, 0, 3, mask)
            for s, ks in STEP_KINDS.items()
            for k in ks
        ]
        asked.append(next_token_question(["a", "b"], [0.6, 0.4], "x"))
        for q in asked:
            key, params = q.why
            entry = strings[key.removeprefix("room.")]
            for lang in ("en", "zh"):
                assert "{" not in entry[lang].format(**params), (key, lang)


def test_the_first_layer_question_names_the_first_row_with_the_answer_in_its_top_five():
    from core.lessons.questions import first_layer_question

    ranks = [
        9740,
        68062,
        8942,
        5766,
        8092,
        7057,
        3968,
        2549,
        5958,
        10864,
        14487,
        4585,
        465,
        31,
        25,
        15,
        9,
        1,
        1,
    ]  # 山 on the translation: rank 1 from layer 17 (from 1)
    for seed in range(20):
        question = first_layer_question("山", ranks, seed)
        labels = [label for label, _ in question.choices]
        assert labels[question.answer] == "17" and len(set(labels)) == len(labels) == 4
        assert all(1 <= int(label) <= 18 for label in labels)
        worked = dict(line.split(": ") for line in question.worked)
        assert {int(k): int(v) for k, v in worked.items()} == {
            int(x): ranks[int(x)] for x in labels
        }
    key, params = question.why
    assert params == {"answer": "山", "layer": 17, "rank": 1, "before_layer": 16, "before": 9}


@pytest.mark.parametrize(
    ("drop", "right"),
    [(0, "0–150"), (149, "0–150"), (150, "150–300"), (599, "450–600"), (None, "")],
)
def test_the_induction_step_question_bets_on_the_span_of_the_drop(drop, right):
    from core.lessons.questions import induction_step_question

    question = induction_step_question(drop, 600, 1.39)
    labels = [label for label, _ in question.choices]
    assert labels == ["0–150", "150–300", "300–450", "450–600", ""]
    assert question.choices[-1][1] == "room.choice_never"
    assert labels[question.answer] == right
    if drop is not None:
        assert question.worked == (f"loss < 1.39: step {drop}",)
        assert question.why == ("room.why_induction_step", {"step": drop, "half": "1.39"})
