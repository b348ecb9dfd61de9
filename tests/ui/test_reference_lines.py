"""The lines of core/reference.py each walkthrough step shows (ui/kit/reference_lines.py): run on
their own they compute that step (against the independent oracle); the marked code is escaped."""

import math

import numpy as np
import pytest
from array_api_compat import numpy as xp_numpy

import core
from core.heads import merge_heads, split_heads
from core.softmax import softmax_rows
from tests.support.oracles import reference as oracle
from ui.kit import reference_lines as code_lines
from ui.views.walkthrough.steps import BY_NAME, STEPS


@pytest.mark.parametrize("step", [step.name for step in STEPS if step.symbols])
@pytest.mark.parametrize("causal", [False, True])
def test_a_steps_lines_compute_that_step(step, causal):
    symbols = BY_NAME[step].symbols
    lines = code_lines.lines_for(symbols)
    assert [line.split(" = ")[0] for line in lines] == list(symbols)
    rng = np.random.default_rng(1)
    n, d_model, n_heads = 5, 6, 2
    X = rng.normal(size=(n, d_model))
    W = core.init_weights(core.AttentionConfig(d_model=d_model, n_heads=n_heads))
    mask = core.causal_mask(n) if causal else None
    expected = oracle(X, W, n_heads, mask)
    # everything the lines may read: the inputs, the helpers, and every other step's array
    names = {"X": X, "W": W, "n_heads": n_heads, "mask": mask, "xp": xp_numpy, "math": math}
    names |= {"split_heads": split_heads, "merge_heads": merge_heads, "softmax_rows": softmax_rows}
    names |= {name: expected[name] for name in core.FIELDS if name not in symbols}
    exec("\n".join(lines), names)
    for symbol in symbols:
        np.testing.assert_allclose(names[symbol], expected[symbol], atol=1e-12, err_msg=symbol)


def test_marked_code_escapes_the_source():
    html = code_lines.code_html(["A = f(x) < 1 & y"], ("A",))
    assert "&lt; 1 &amp; y" in html and html.count("<mark") == 1
