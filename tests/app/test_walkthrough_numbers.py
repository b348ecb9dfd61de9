"""Every number the walkthrough prints, read back from the page and compared with the oracle
(tests/support/numbers.py's app_oracle: the inputs' tables, PE by its formula, attention one head
at a time with a written-out softmax): each step's charts, values and cell text, block included;
the focus row worked out under each step; and a clicked cell's story at every depth. Numbered
from 0 and from 1, with and without the causal mask, in both languages, and for a row with more
keys than are written out."""

import json
import math

import numpy as np
import pytest

from core.block import init_feed_forward
from tests.support.app import decode, run_app
from tests.support.numbers import app_oracle, assert_printed, close, numbers
from tests.support.stories import assert_close_printed, check_cell_story, check_row_story
from ui.kit.i18n import t
from ui.kit.session import CELL

SENTENCE = "we read the old book today"  # six tokens, each different
LONG = "one two three four five six seven eight nine ten"  # more keys than a row writes out
HEAD, FOCUS = 1, 2  # the second head: a head mixed up with another shows


def _charts(at) -> dict:
    return {chart.key: json.loads(chart.proto.spec) for chart in at.get("plotly_chart")}


def _layer_norm(Z):
    """Each row minus its mean, over the root of its population variance plus ε, term by term."""
    out = np.empty_like(Z)
    for r, row in enumerate(Z):
        mean = sum(row) / len(row)
        var = sum((x - mean) ** 2 for x in row) / len(row)
        out[r] = [(x - mean) / math.sqrt(var + 1e-5) for x in row]
    return out


def _block(o, seed=0):
    """The rest of the block from the oracle's X and output: H, N, hidden, F and Y."""
    ff = init_feed_forward(o.X.shape[1], seed)  # the weight tables: inputs
    H = o.X + o.output
    N = _layer_norm(H)
    hidden = np.maximum(N @ ff.W_1 + ff.b_1, 0)
    F = hidden @ ff.W_2 + ff.b_2
    return dict(H=H, N=N, hidden=hidden, F=F, Y=_layer_norm(N + F), W_1=ff.W_1, W_2=ff.W_2)


def _expected(step: str, o) -> dict:
    """Each chart's key, the matrix it should draw, and which cells are hidden and what is
    written in them."""
    h, dk = HEAD, o.d_k
    hidden = None if o.mask is None else ~o.mask
    per_step = {
        "tokens": {"fig_x": o.E},
        "pe": {"fig_pe": o.PE},
        "x_pe": {"fig_xpe": o.X},
        "qkv": {"fig_Q": o.Q[h], "fig_K": o.K[h], "fig_V": o.V[h],
                **{f"fig_{name}": getattr(o.W, name)[:, h * dk : (h + 1) * dk]
                   for name in ("W_Q", "W_K", "W_V")}},
        "scores": {"fig_scores": o.S[h]},
        "scaled": {"fig_scaled": o.S_scaled[h]},
        "mask": {"fig_mask": (o.S_masked[h], hidden, "−∞")},
        "softmax": {"fig_softmax": (o.A[h], hidden, "0")},  # a hidden key's weight is 0
        "av": {"fig_av": o.O[h], "fig_av_A": (o.A[h], hidden, "0"), "fig_av_V": o.V[h]},
        "heads": {"fig_concat": o.concat, "fig_output": o.output, "fig_W_O": o.W.W_O},
    }  # fmt: skip
    if step == "block":
        block = _block(o)
        return {f"fig_{name}": block[name] for name in ("W_1", "W_2")} | {
            f"fig_block_{name}": block[name] for name in "HNFY"
        }
    return per_step[step]


STEPS = ("tokens", "pe", "x_pe", "qkv", "scores", "scaled", "mask", "softmax", "av", "heads",
         "block")  # fmt: skip


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("base, mask, decimals", [(0, "none", 2), (1, "causal", 3)])
def test_every_steps_charts_draw_and_print_the_oracles_numbers(step, base, mask, decimals):
    """Each chart's values (to float32, as sent), each cell's printed text (rounded), its hidden
    cells (−∞ drawn grey), its row labels (the tokens) and its column numbers (from 0 or 1)."""
    at = run_app(step=step, lang="en", sentence=SENTENCE, head=HEAD, focus=FOCUS, base=base,
                 mask=mask, decimals=decimals)  # fmt: skip
    assert not at.exception
    o = app_oracle(SENTENCE, causal=mask == "causal")
    shown = _charts(at)
    expected = _expected(step, o)
    assert set(expected) <= set(shown), f"{step}: charts {sorted(shown)}"
    for key, want in expected.items():
        M, hidden, written = want if isinstance(want, tuple) else (want, None, "")
        data = shown[key]["data"]
        z = decode(data[0]["z"])
        where = np.ones(M.shape, bool) if hidden is None else ~hidden
        np.testing.assert_allclose(z[where], M[where], rtol=2e-6, atol=2e-6, err_msg=key)
        assert np.isnan(z[~where]).all(), f"{key}: a hidden cell is coloured"
        if max(M.shape) <= 24:  # a cell each, with its value written in
            assert_close_printed(data[0]["text"], M, decimals, hidden)
        else:
            assert "text" not in data[0], key
        if hidden is not None and hidden.any():
            grey = np.asarray(data[1]["text"], dtype=object)
            assert (grey[hidden] == written).all() and (grey[~hidden] == "").all(), key
        layout = shown[key]["layout"]
        if key.startswith("fig_W"):
            continue  # dimension × dimension
        assert layout["yaxis"]["ticktext"] == o.tokens, key
        by_key = step in ("scores", "scaled", "mask", "softmax") or key == "fig_av_A"  # key × key
        if key not in ("fig_concat", "fig_W_O") and not by_key:
            columns = [str(c + base) for c in range(M.shape[1])]
            assert layout["xaxis"]["ticktext"] == columns, key


def _bullets_after(at, heading: str) -> list[str]:
    """The bullet lines of the Markdown right after the one that holds ``heading``."""
    values = [m.value for m in at.markdown]
    index = next(k for k, value in enumerate(values) if heading in value)
    lines = values[index + 1].splitlines()
    assert all(line.startswith("- ") for line in lines), lines
    return lines


HEADINGS = {
    "scores": "walkthrough.focus_dot",
    "scaled": "walkthrough.focus_dot",
    "mask": "walkthrough.focus_mask",
    "softmax": "walkthrough.focus_softmax",
    "av": "walkthrough.focus_output",
}


@pytest.mark.parametrize("step", list(HEADINGS))
@pytest.mark.parametrize(
    "lang, base, mask, decimals, sentence",
    [
        ("en", 0, "none", 2, SENTENCE),
        ("zh", 1, "causal", 3, SENTENCE),
        ("en", 1, "causal", 4, LONG),  # ten keys: seven written out, the heaviest
        ("zh", 0, "none", 2, LONG),
    ],
)
def test_the_focus_row_is_worked_out_with_the_oracles_numbers(step, lang, base, mask, decimals,
                                                              sentence):  # fmt: skip
    """Each product's factors, each sum, ÷√d_k, which keys the mask hides, the row's max, each
    e^(s′ − m), their sum, each weight, each term of o_i: every number on every line."""
    at = run_app(step=step, lang=lang, sentence=sentence, head=HEAD, focus=FOCUS, base=base,
                 mask=mask, decimals=decimals)  # fmt: skip
    o = app_oracle(sentence, causal=mask == "causal")
    i = FOCUS
    heading = t(HEADINGS[step], lang, i=i + base, si=_sub(i + base))
    lines = _bullets_after(at, heading)
    check_row_story(step, lines, o, HEAD, i, decimals, base)


@pytest.mark.parametrize("step", ["scores", "scaled", "mask", "softmax", "av"])
@pytest.mark.parametrize(
    "lang, base, mask, decimals, sentence, j",
    [
        ("en", 0, "none", 2, SENTENCE, 1),
        ("zh", 1, "causal", 3, SENTENCE, 4),  # a key after the query: hidden
        ("en", 0, "causal", 4, SENTENCE, 0),
        ("en", 1, "none", 3, LONG, 9),  # ten keys: the clicked one is written out whatever
    ],
)
def test_a_clicked_cells_story_carries_the_oracles_numbers(step, lang, base, mask, decimals,
                                                           sentence, j):  # fmt: skip
    """Click (as the chart does: the session's clicked cell) a cell of the focus row: its story
    from q_i and k_j to the cell's value, or o_i[c] as the sum of its terms."""
    at = run_app(step=step, lang=lang, sentence=sentence, head=HEAD, focus=FOCUS, base=base,
                 mask=mask, decimals=decimals)  # fmt: skip
    c = j % 4 if step == "av" else j  # O has d_v = 4 columns
    at.session_state[CELL] = (step, FOCUS, c)
    at.run()
    assert not at.exception
    o = app_oracle(sentence, causal=mask == "causal")
    lines = _bullets_after(at, t("walkthrough.cell_title", lang, i=FOCUS + base, j=c + base))
    check_cell_story(step, lines, o, HEAD, FOCUS, c, decimals, base)


@pytest.mark.parametrize("lang, base, decimals", [("en", 0, 2), ("zh", 1, 3)])
def test_the_block_row_is_worked_out_with_the_oracles_numbers(lang, base, decimals):
    """h_i = x_i + MultiHead(X)_i term by term, LayerNorm's mean and variance and its result,
    how many of the d_ff hidden units ReLU zeroes, f_i, and y_i."""
    at = run_app(step="block", lang=lang, sentence=SENTENCE, focus=FOCUS, base=base,
                 decimals=decimals)  # fmt: skip
    o, i = app_oracle(SENTENCE), FOCUS
    b = _block(o)
    heading = t("walkthrough.focus_block", lang, i=i + base, token=o.tokens[i])
    lines = [line.removeprefix("- ") for line in _bullets_after(at, heading)]
    residual, mean_h, norm, ffn, f, mean_nf, y, last = lines
    assert_printed(numbers(residual), [*o.X[i], *o.output[i], *b["H"][i]], decimals, residual)
    assert_printed(numbers(mean_h), [b["H"][i].mean(), b["H"][i].var()], decimals, mean_h)
    assert norm.startswith(f"n{_sub(i + base)} = (h{_sub(i + base)} − μ) ÷ √(σ² + ε) = "), norm
    norm, eps = norm.rsplit(" ε = ", 1)
    assert eps == "10⁻⁵", eps  # the oracle's ε, 1e-5, written as a power of ten
    assert_printed(numbers(norm), b["N"][i], decimals, norm)
    d_ff, zeros, _ = numbers(ffn)  # "… sets the k negative ones to 0"
    assert d_ff == 32 and zeros == (b["hidden"][i] == 0).sum() > 0, ffn
    assert_printed(numbers(f), b["F"][i], decimals, f)
    NF = b["N"][i] + b["F"][i]
    assert_printed(numbers(mean_nf), [NF.mean(), NF.var()], decimals, mean_nf)
    nf = f"(n{_sub(i + base)} + f{_sub(i + base)} − μ)"
    assert y.startswith(f"y{_sub(i + base)} = {nf} ÷ √(σ² + ε) = "), y
    y, eps = y.rsplit(" ε = ", 1)
    assert eps == "10⁻⁵", eps
    assert_printed(numbers(y), b["Y"][i], decimals, y)
    assert o.tokens[i] in last


def _sub(k: int) -> str:
    return str(k).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def test_the_scaled_scores_are_the_scores_over_root_d_k_on_screen():
    """Two steps' printed cells against each other and the oracle: S′ = S ÷ 2 for d_k = 4."""
    o = app_oracle(SENTENCE)
    scores = _charts(run_app(step="scores", lang="en", sentence=SENTENCE, decimals=4))
    scaled = _charts(run_app(step="scaled", lang="en", sentence=SENTENCE, decimals=4))
    S = np.vectorize(lambda s: numbers(s)[0])(np.asarray(scores["fig_scores"]["data"][0]["text"]))
    S2 = np.vectorize(lambda s: numbers(s)[0])(np.asarray(scaled["fig_scaled"]["data"][0]["text"]))
    assert np.all([close(a, b, 4) for a, b in zip(S.ravel(), o.S[0].ravel(), strict=True)])
    assert np.allclose(S2, S / 2, atol=1e-4 + 1e-9)


def test_the_scaled_scores_share_the_scores_colour_range():
    """÷√d_k is coloured on S's own range (±max |S|, from the oracle), so its cells look paler."""
    o = app_oracle(SENTENCE)
    bound = float(np.abs(o.S[HEAD]).max())
    for step in ("scores", "scaled"):
        trace = _charts(run_app(step=step, lang="en", sentence=SENTENCE, head=HEAD))[f"fig_{step}"]
        zmin, zmax = trace["data"][0]["zmin"], trace["data"][0]["zmax"]
        assert math.isclose(zmax, bound, rel_tol=1e-6) and math.isclose(zmin, -bound, rel_tol=1e-6)


@pytest.mark.parametrize("mask", ["none", "causal"])
def test_the_mask_step_draws_the_0_1_mask(mask):
    """M beside the masked scores: 1 where the oracle's mask lets a query see a key, else 0."""
    o = app_oracle(SENTENCE, causal=mask == "causal")
    at = run_app(step="mask", lang="en", sentence=SENTENCE, mask=mask)
    M = decode(_charts(at)["fig_mask_M"]["data"][0]["z"])
    n = len(o.tokens)
    allowed = np.ones((n, n), bool) if o.mask is None else o.mask
    np.testing.assert_array_equal(M, allowed.astype(float))
