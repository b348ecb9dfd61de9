"""Reading back the numbers a page prints, and the independent numbers they should be.

``numbers(line)`` lists the plain numbers of one printed line in order (true minus signs read as
minus; subscript digits, which name rows and columns, are not numbers here). ``close`` says a
printed number is its true value rounded to the page's decimals. ``app_oracle`` is what the
app's sidebar settings should give, computed here from the inputs alone: the token table and the
weight tables (core's seeded, rounded inputs), PE from its formula, and every product, softmax and
sum by tests/support/oracles.py, never by the core's attention.
"""

import json
import math
import re
from dataclasses import dataclass

import numpy as np

import core
from tests.support.app import decode
from tests.support.oracles import reference

_NUMBER = re.compile(r"(?<![\w.])[−-]?\d+(?:\.\d+)?(?:e[+−-]?\d+)?")


def numbers(text: str) -> list[float]:
    """Every plain number in ``text``, in order: '(−0.50)·1.25 = **−0.62**' gives
    [-0.5, 1.25, -0.62]."""
    return [float(m.replace("−", "-")) for m in _NUMBER.findall(text.replace("**", ""))]


_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")


def power_of_ten_value(text: str) -> float:
    """The number a page writes as a power of ten ('0', '10⁻⁵', '3.6 × 10⁻¹⁶', '0.25'), read
    back; the printed text is the whole of ``text``, spaces aside."""
    text = text.strip().replace("−", "-")
    match = re.fullmatch(r"(?:(-?\d+(?:\.\d+)?) × )?(-?)10([⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)", text)
    if match is None:
        return float(text)
    mantissa, sign, exponent = match.groups()
    value = float(mantissa or 1) * 10.0 ** int(exponent.translate(_SUPERSCRIPT))
    return -value if sign else value


def close(printed: float, value: float, decimals: int) -> bool:
    """``printed`` is ``value`` rounded to ``decimals`` places (half a unit in the last place, and
    a hair for values that sit on a rounding edge)."""
    return abs(printed - value) <= 0.5 * 10.0**-decimals + 1e-9 * max(1.0, abs(value))


def assert_printed(printed, values, decimals: int, what: str = "") -> None:
    """Each printed number is its value rounded, and there are as many of each."""
    printed, values = list(printed), [float(v) for v in np.ravel(values)]
    assert len(printed) == len(values), f"{what}: printed {printed}, expected {values}"
    for p, v in zip(printed, values, strict=True):
        assert close(p, v, decimals), f"{what}: printed {p}, but the value is {v:.6f}"


def positional_by_formula(n: int, d_model: int) -> np.ndarray:
    """PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(…), one entry at a time."""
    PE = np.zeros((n, d_model))
    for pos in range(n):
        for dim in range(d_model):
            angle = pos / 10000 ** (2 * (dim // 2) / d_model)
            PE[pos, dim] = math.sin(angle) if dim % 2 == 0 else math.cos(angle)
    return PE


@dataclass
class AppOracle:
    tokens: list
    E: np.ndarray
    PE: np.ndarray | None
    X: np.ndarray
    W: object  # core.Weights, NumPy
    mask: np.ndarray | None
    n_heads: int
    fields: dict  # reference(): Q, K, V, S, S_scaled, S_masked, A, O [h, n, ·], concat, output

    def __getattr__(self, name):
        try:
            return self.__dict__["fields"][name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def d_k(self) -> int:
        return self.fields["Q"].shape[-1]


def app_oracle(
    sentence: str,
    d_model: int = 8,
    n_heads: int = 2,
    seed: int = 0,
    positional: bool = True,
    causal: bool = False,
    mode: str = "auto",
) -> AppOracle:
    """What the page should show for these sidebar settings."""
    tokens = core.tokenize(sentence, mode)
    n = len(tokens)
    E = core.to_numpy(core.embed(tokens, d_model, seed))  # the token table: an input
    PE = positional_by_formula(n, d_model) if positional else None
    X = E if PE is None else E + PE
    config = core.AttentionConfig(d_model=d_model, n_heads=n_heads, seed=seed)
    W = core.init_weights(config)  # the weight tables: inputs
    W = core.Weights(**{name: core.to_numpy(M) for name, M in vars(W).items()})
    mask = np.tril(np.ones((n, n), bool)) if causal else None
    return AppOracle(tokens, E, PE, X, W, mask, n_heads, reference(X, W, n_heads, mask))


def cell_text(spec: dict, trace: int = 0) -> np.ndarray:
    """A heatmap's printed cells as floats: what the learner reads in each cell ('−∞' is -inf,
    an empty cell NaN)."""

    def read(text):
        text = str(text).replace("−", "-")
        if text in ("-∞", "−∞"):
            return -np.inf
        return float(text) if text.strip() else np.nan

    return np.vectorize(read, otypes=[float])(np.asarray(spec["data"][trace]["text"], dtype=object))


def assert_cells(spec: dict, values, decimals: int, what: str = "") -> None:
    """A heatmap shows ``values``: each printed cell is its value rounded to ``decimals``, and
    each coloured cell (float32 in the chart's JSON) is the value itself."""
    values = np.asarray(values, dtype=float)
    printed = cell_text(spec)
    assert printed.shape == values.shape, f"{what}: {printed.shape} cells, not {values.shape}"
    assert_printed(printed.ravel(), values, decimals, what)
    z = decode(spec["data"][0]["z"]).astype(float)
    np.testing.assert_allclose(z, values, rtol=1e-6, atol=1e-6, err_msg=what)


def chart_keyed(at, key: str) -> dict:
    """The Plotly spec of the chart drawn with widget key ``key`` (titles change with the
    language and the numbering; keys do not)."""
    keys = [chart.key for chart in at.get("plotly_chart")]
    assert key in keys, f"no chart {key!r} among {keys}"
    return json.loads(at.get("plotly_chart")[keys.index(key)].proto.spec)


def assert_masked_cells(spec: dict, values, hidden, hidden_text: str, decimals: int, what=""):
    """A heatmap with hidden cells shows ``values`` where they are not hidden (printed rounded to
    ``decimals`` and coloured as the value), and where they are (``hidden`` True) is grey with
    ``hidden_text`` written on it ('−∞' before the softmax, '0' after) and no colour of its own."""
    values = np.asarray(values, dtype=float)
    hidden = np.broadcast_to(np.asarray(hidden, dtype=bool), values.shape)
    printed = cell_text(spec)
    assert printed.shape == values.shape, f"{what}: {printed.shape} cells, not {values.shape}"
    assert_printed(printed[~hidden], values[~hidden], decimals, what)
    z = decode(spec["data"][0]["z"]).astype(float)
    assert np.isnan(z[hidden]).all(), f"{what}: a hidden cell is coloured"
    np.testing.assert_allclose(z[~hidden], values[~hidden], rtol=1e-6, atol=1e-6, err_msg=what)
    if not hidden.any():  # no grey overlay: a later trace only repeats a value (white on dark)
        values_text = np.asarray(spec["data"][0]["text"], dtype=object)
        for over in spec["data"][1:]:
            written = np.asarray(over.get("text", ""), dtype=object)
            same = (written == "") | (written == values_text)
            assert same.all(), f"{what}: an overlay over no hidden cell"
        return
    overlay = np.asarray(spec["data"][1]["text"], dtype=object)
    assert (overlay[hidden] == hidden_text).all(), f"{what}: hidden cells read {overlay[hidden]}"
    assert (overlay[~hidden] == "").all(), f"{what}: a visible cell is covered"


_FIELD = re.compile(r"\{(\w+)\}")


def template_numbers(template: str, **values) -> list[float]:
    """The numbers a string template prints, in order: its own figures as numbers() reads them,
    and each {field} as values[field] (a number, a list of numbers, or None for a field that
    prints none, such as a token). Pass t(key, lang), the template itself, unformatted."""
    printed = []
    for i, part in enumerate(_FIELD.split(template)):
        if i % 2 == 0:
            printed += numbers(part)
        elif values[part] is not None:
            printed += [float(v) for v in np.ravel(values[part])]
    return printed
