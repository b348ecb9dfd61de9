"""The scaling page: measured variance close to d_k, the gradient note, one colour for unscaled,
and the worked row's order."""

import math
import re

import numpy as np
import pytest

from tests.support.app import chart_titled, charts, decode, grids, page_text, run_app
from tests.support.numbers import assert_printed, numbers, template_numbers
from ui.kit.i18n import t

D_K = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)


def test_the_gradient_note_says_what_the_curve_shows():
    at = run_app("scaling", lang="en")
    assert not at.exception
    without, with_scaling = (
        decode(trace["y"])
        for trace in chart_titled(at, "mean size of the softmax gradient")["data"]
    )
    above = [d for d, u, s in zip(D_K, without, with_scaling) if u > s]
    assert above, "the note explains a crossing that the curve has"
    low, high = min(above), max(above)
    cross = D_K[D_K.index(high) + 1]
    text = page_text(at)
    assert f"For d_k = {low} to {high} the unscaled gradient is above the scaled one" in text
    assert f"from d_k = {cross} on it is below" in text
    after = [u < s for d, u, s in zip(D_K, without, with_scaling) if d >= cross]
    assert all(after)  # "below ... from d_k = cross on"
    tail = [u for d, u in zip(D_K, without) if d >= cross]
    assert all(b < a for a, b in zip(tail, tail[1:]))  # "falls towards 0"
    assert f"even row (every weight 1/16) gives {math.sqrt(15) / 16:.2f}" in text
    assert "two keys at one half each give 0.50" in text
    assert f"flat near {np.mean(with_scaling):.2f}" in text
    assert f"(up to {math.sqrt(high):.2f})" in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_unscaled_is_one_colour_in_every_chart(lang):
    at = run_app("scaling", lang=lang)
    specs = charts(at)
    assert len(specs) == 4
    for spec in specs:
        unscaled, scaled = spec["data"]
        assert unscaled["marker"]["color"] == "#D55E00"
        assert scaled["marker"]["color"] == "#0072B2"
        if unscaled.get("type") == "scatter":
            assert unscaled["line"]["color"] == "#D55E00"
            assert scaled["line"]["color"] == "#0072B2"
    if lang == "zh":  # chart text: no English words (symbols and softmax are fine)
        allowed = {"softmax", "d_k"}
        for spec in specs:
            layout = spec["layout"]
            words = [layout["title"]["text"], layout["xaxis"]["title"]["text"]]
            words += [layout.get("yaxis", {}).get("title", {}).get("text", "")]
            words += [trace["name"] for trace in spec["data"]]
            for text in words:
                english = set(re.findall(r"[A-Za-z_]{2,}", text)) - allowed
                assert not english, (text, english)


def test_the_worked_row_keeps_its_order_numbered_from_one_with_three_decimals():
    at = run_app("scaling", lang="en", base=1, decimals=3)
    assert not at.exception
    table = grids(at)[0]
    rows = table.iloc[:-1]
    assert list(rows["key"]) == ["1", "2", "3", "4", "5", "6"]
    raw = np.array([float(v.replace("−", "-")) for v in rows["q·k"]])
    scaled = np.array([float(v.replace("−", "-")) for v in rows["q·k / √d_k"]])
    np.testing.assert_allclose(scaled, raw / 8, atol=2e-3)  # d_k = 64 by default
    assert all(len(v.split(".")[1]) == 3 for v in rows["q·k"])
    assert list(np.argsort(-raw)) == list(np.argsort(-scaled))
    assert list(table.iloc[-1][["weight, unscaled", "weight, scaled"]]) == ["1.000", "1.000"]
    best = int(np.argmax(raw)) + 1
    order = " > ".join(str(j + 1) for j in np.argsort(-raw))
    text = page_text(at)
    assert f"same before and after: {order}. Key {best} has the largest score" in text
    assert "changes the weights by at most 0.000" in text


def test_scaling_page_measures_variance_close_to_d_k():
    import re

    at = run_app("scaling", lang="en")
    assert not at.exception
    for d_k in (64, 512):
        at.select_slider(key="sc_d_k").set_value(d_k).run()
        message = at.success[0].value
        raw, scaled = (float(v) for v in re.findall(r"= ([0-9.]+) \(theory", message))
        assert abs(raw - d_k) < 5 * d_k * (3 / 20000) ** 0.5  # five standard errors
        assert abs(scaled - 1) < 5 * (3 / 20000) ** 0.5
    grad = chart_titled(at, "mean size of the softmax gradient")["data"]
    without, with_scaling = (decode(trace["y"]) for trace in grad)
    assert without[-1] < with_scaling[-1] / 3  # d_k = 512: the unscaled gradient has vanished


# The experiments' random inputs, drawn as the page's documented recipe says (a generator seeded
# with the seed given, standard normal entries, q first and then k); everything computed from them
# (products, variances, softmax, entropy, Jacobian sizes) is worked out here, not by the page.


def draws(seed: int, *shapes):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape) for shape in shapes]


def printed_line(at, key: str, lang: str) -> str:
    """The markdown the string ``key`` printed: the one that starts as its template does."""
    start = t(key, lang).split("{")[0]
    return next(m.value for m in at.markdown if m.value.startswith(start))


def variance(values) -> float:
    mean = math.fsum(values) / len(values)
    return math.fsum((v - mean) ** 2 for v in values) / len(values)


def softmax_by_loop(row) -> np.ndarray:
    e = [math.exp(v - max(row)) for v in row]
    return np.array([x / math.fsum(e) for x in e])


def sharpness_by_hand(d_k: int, scaled: bool, n_keys: int = 16, rows: int = 256):
    """Mean largest weight, entropy −Σ a log a, and the Frobenius norm of the softmax's
    Jacobian, entry (i, j) being ∂a_i/∂s_j = a_i (δ_ij − a_j)."""
    q, K = draws(0, (rows, 1, d_k), (rows, n_keys, d_k))
    S = np.einsum("rc,rkc->rk", q[:, 0, :], K) / (math.sqrt(d_k) if scaled else 1.0)
    A = np.array([softmax_by_loop(row) for row in S])
    entropy = [-sum(a * math.log(a) for a in row if a > 0) for row in A]
    J = A[:, :, None] * (np.eye(n_keys) - A[:, None, :])  # [rows, i, j]
    size = np.sqrt((J**2).sum(axis=(1, 2)))
    return A.max(axis=1).mean(), np.mean(entropy), size.mean()


@pytest.mark.parametrize(("lang", "d_k", "samples"), [("en", 64, 20000), ("zh", 8, 1000)])
def test_the_measured_variances_are_those_of_the_drawn_products(lang, d_k, samples):
    """The message and the legend print Var(q·k) and Var(q·k/√d_k) of the experiment's draws,
    computed here, and each histogram is the density of those products on the chart's bins."""
    at = run_app("scaling", lang=lang)
    at.select_slider(key="sc_d_k").set_value(d_k).run()
    at.select_slider(key="sc_samples").set_value(samples).run()
    assert not at.exception
    q, k = draws(d_k, (samples, d_k), (samples, d_k))
    products = [math.fsum(a * b for a, b in zip(qi, ki, strict=True)) for qi, ki in zip(q, k)]
    raw = variance(products)
    scaled = variance([p / math.sqrt(d_k) for p in products])
    expected = template_numbers(
        t("scaling.measured", lang), samples=samples, d_k=d_k, raw=raw, scaled=scaled
    )
    assert_printed(numbers(at.success[0].value), expected, 2, "the measured variances")
    spec = chart_titled(at, "The same scores" if lang == "en" else "")
    for trace, values, var in zip(
        spec["data"], (products, np.array(products) / math.sqrt(d_k)), (raw, scaled), strict=True
    ):
        assert_printed(numbers(trace["name"].split("·")[-1]), [var], 2, trace["name"])
        centres, width = decode(trace["x"]), trace["width"]
        edges = np.append(centres - width / 2, centres[-1] + width / 2)
        density, _ = np.histogram(values, bins=edges, density=True)
        np.testing.assert_allclose(decode(trace["y"]), density, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(
    ("lang", "base", "decimals", "d_k"), [("en", 0, 2, 64), ("zh", 1, 3, 16), ("en", 1, 4, 512)]
)
def test_the_worked_row_and_the_relative_weights_print_the_row_worked_here(
    lang, base, decimals, d_k
):
    """One query against six keys (seed d_k): the table prints q·k_j, q·k_j/√d_k, the rank, both
    softmaxes and their sums (1); the ranking line prints the order, the winner and its two
    weights; the relative line prints the shift, the change it makes (0), and key 'second''s
    weight before and after the winner is taken out of the row."""
    at = run_app("scaling", lang=lang, base=base, decimals=decimals)
    at.select_slider(key="sc_d_k").set_value(d_k).run()
    assert not at.exception
    q, K = draws(d_k, (d_k,), (6, d_k))
    raw = [math.fsum(a * b for a, b in zip(key, q, strict=True)) for key in K]
    scaled = [s / math.sqrt(d_k) for s in raw]
    order = sorted(range(6), key=lambda j: -raw[j])
    w_raw, w_scaled = softmax_by_loop(raw), softmax_by_loop(scaled)
    table = grids(at)[0]
    rows, total = table.iloc[:-1], table.iloc[-1]
    key, raw_col, scaled_col, rank, wr, ws = table.columns
    assert list(rows[key]) == [str(j + base) for j in range(6)]
    for column, values in ((raw_col, raw), (scaled_col, scaled), (wr, w_raw), (ws, w_scaled)):
        assert_printed([numbers(v)[0] for v in rows[column]], values, decimals, column)
    assert [int(r) for r in rows[rank]] == [order.index(j) + 1 for j in range(6)]
    assert_printed([numbers(total[wr])[0], numbers(total[ws])[0]], [1, 1], decimals, "Σ")
    best = order[0]
    ranking = printed_line(at, "scaling.order_same", lang)
    expected = template_numbers(
        t("scaling.order_same", lang), order=[j + base for j in order], best=best + base,
        w_raw=w_raw[best], w_scaled=w_scaled[best],
    )  # fmt: skip
    assert_printed(numbers(ranking), expected, decimals, "the ranking line")
    second = order[1]
    rest = [j for j in range(6) if j != best]
    after = math.exp(scaled[second]) / math.fsum(math.exp(scaled[j]) for j in rest)
    line = printed_line(at, "scaling.relative_text", lang)
    expected = template_numbers(
        t("scaling.relative_text", lang), shift=5, change=0, best=best + base,
        second=second + base, before=w_scaled[second], after=after,
    )  # fmt: skip
    assert_printed(numbers(line), expected, decimals, "the relative line")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_sharpness_curves_and_the_gradient_note_are_the_softmax_worked_here(lang):
    """The largest-weight, entropy and gradient charts draw, for every d_k, the means over the
    experiment's 256 rows of 16 keys computed here with and without ÷√d_k; the note prints where
    the unscaled gradient is above the scaled one, √15/16 for an even row, 1/2 for two halves,
    the scaled line's level and √d_k at the last d_k above."""
    at = run_app("scaling", lang=lang)
    assert not at.exception
    curves = {s: np.array([sharpness_by_hand(d, s) for d in D_K]) for s in (False, True)}
    for key, column in (("sc_max", 0), ("sc_entropy", 1), ("sc_grad", 2)):
        spec = charts(at)[[c.key for c in at.get("plotly_chart")].index(key)]
        assert [int(x) for x in decode(spec["data"][0]["x"])] == list(D_K)
        for trace, scaled in zip(spec["data"], (False, True), strict=True):
            expected = curves[scaled][:, column]
            np.testing.assert_allclose(decode(trace["y"]), expected, rtol=1e-9, atol=1e-12)
    unscaled, scaled = curves[False][:, 2], curves[True][:, 2]
    above = [d for d, u, s in zip(D_K, unscaled, scaled, strict=True) if u > s]
    low, high = min(above), max(above)
    cross = D_K[D_K.index(high) + 1]
    note = printed_line(at, "scaling.grad_why", lang)
    expected = template_numbers(
        t("scaling.grad_why", lang), low=low, high=high, cross=cross, n=16,
        even=math.sqrt(15) / 16, two=0.5, level=scaled.mean(), spread=math.sqrt(high),
    )  # fmt: skip
    assert_printed(numbers(note), expected, 2, "the gradient note")
