"""A clicked cell's story (ui/views/walkthrough/cell_story.py) against the trace's numbers."""

import numpy as np

from tests.support.traces import sentence_attention
from ui.kit.number_text import num
from ui.views.walkthrough.cell_story import story


def test_a_weight_is_worked_from_q_and_k_to_a():
    tr = sentence_attention(["a", "b", "c", "d"])
    lines = story("softmax", tr, 1, 2, 3, decimals=4, base=1)
    s = float(tr.Q[1, 2] @ tr.K[1, 3])
    assert f"**{num(s, 4)}**" in lines[2]  # s₃,₄ = q₃·k₄, numbered from 1
    assert lines[2].startswith("s₃,₄ = q₃·k₄")
    assert f"**{num(s / 2, 4)}**" in lines[3]  # ÷ √4
    assert lines[-1].endswith(f"**{num(tr.A[1, 2, 3], 4)}**")
    row = tr.S_scaled[1, 2]
    total = np.exp(row - row.max()).sum()
    assert num(total, 4) in "\n".join(lines)


def test_a_masked_weight_ends_in_zero():
    lines = story(
        "softmax", sentence_attention(["a", "b", "c", "d"], True), 0, 1, 3, decimals=2, base=0
    )  # key 3 after query 1
    assert any("M₁,₃ = 0" in line for line in lines)
    assert lines[-1].startswith("a₁,₃ = **0**")


def test_an_output_cell_is_the_weighted_sum_of_values():
    tr = sentence_attention(["a", "b", "c", "d"])
    lines = story("av", tr, 0, 3, 1, decimals=3, base=0)
    assert lines[-1].startswith("o₃[1] = ")
    assert lines[-1].endswith(f"**{num(tr.A[0, 3] @ tr.V[0][:, 1], 3)}**")
