"""Checks of the walkthrough's written-out arithmetic, line by line, against the oracle: the
focus row worked out under a step, and a clicked cell's story. Each line's every printed number
is read back (tests/support/numbers.py) and compared with the same quantity computed from Q, K
and V by the oracle (tests/support/numbers.py's app_oracle). Shared by the AppTests and the
browser test, which read the same lines from Markdown and from the page's text."""

import math

import numpy as np

from tests.support.numbers import assert_printed, close, numbers

_SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def sub(*indices) -> str:
    return ",".join(str(i) for i in indices).translate(_SUB)


def _plain(line: str) -> str:
    return line.removeprefix("- ").replace("**", "").strip()


def heaviest_keys(A_row, limit: int = 8, chosen=None) -> list[int]:
    """The keys a row with more than ``limit`` keys writes out: its limit − 1 largest weights,
    the chosen key too, in order (a row of at most ``limit`` keys writes every key)."""
    n = len(A_row)
    if n <= limit:
        return list(range(n))
    order = sorted(range(n), key=lambda j: -A_row[j])
    keys = set(order[: limit - 1]) | ({chosen} if chosen is not None else set())
    return sorted(keys)


def _row_exps(o, h: int, i: int):
    """The visible keys, the row's largest visible scaled score m, each e^(s'_ij − m), the sum."""
    allowed = np.ones(o.S.shape[-1], bool) if o.mask is None else o.mask[i]
    row = o.S_scaled[h, i]
    m = max(row[j] for j in range(len(row)) if allowed[j])
    exps = [math.exp(row[j] - m) if allowed[j] else 0.0 for j in range(len(row))]
    return allowed, m, exps, sum(exps)


def check_dot_line(line: str, o, h: int, i: int, j: int, decimals: int, base: int) -> bool:
    """'s_ij = q_i·k_j = q·k + … = **s**' (and '; ÷ √d_k → s′'): every product's two factors,
    the sum and the scaled score. Returns whether the line goes on to divide by √d_k."""
    line = _plain(line)
    b = base
    assert line.startswith(f"s{sub(i + b, j + b)} = q{sub(i + b)}·k{sub(j + b)} = "), line
    values = numbers(line.split(" → −∞")[0])
    d_k = o.d_k
    pairs = np.stack([o.Q[h, i], o.K[h, j]], axis=1).ravel()  # q₀, k₀, q₁, k₁, …
    S = o.S[h, i, j]
    assert_printed(values[: 2 * d_k + 1], [*pairs, S], decimals, line)
    rest = values[2 * d_k + 1 :]
    if rest:  # ÷ √d_k → s′
        assert rest[0] == d_k, line
        assert_printed(rest[1:], [o.S_scaled[h, i, j]], decimals, line)
    return bool(rest)


def check_row_story(step: str, lines: list[str], o, h: int, i: int, decimals: int, base: int):
    """The focus row worked out under step ``step`` (scores, scaled, mask, softmax, av)."""
    lines = [_plain(line) for line in lines]
    n = o.S.shape[-1]
    allowed = np.ones(n, bool) if o.mask is None else o.mask[i]
    keys = heaviest_keys(o.A[h, i])
    if step == "softmax":  # says how many keys it leaves out before their sum, not last
        return _check_softmax_lines(lines, o, h, i, keys, decimals, base)
    if len(keys) < n:
        assert numbers(lines[-1]) == [n - len(keys)], lines[-1]  # "… and k more keys"
        lines = lines[:-1]
    if step in ("scores", "scaled"):
        assert len(lines) == len(keys)
        for j, line in zip(keys, lines, strict=True):
            assert check_dot_line(line, o, h, i, j, decimals, base)
            assert ("−∞" in line) == (not allowed[j]), line
    elif step == "mask":
        assert len(lines) == len(keys)
        for j, line in zip(keys, lines, strict=True):
            index, value = numbers(line)
            assert index == j + base, line
            assert_printed([value], [o.S_scaled[h, i, j]], decimals, line)
            assert ("−∞" in line) == (not allowed[j]), line
    else:
        _check_output_lines(lines, o, h, i, keys, decimals, base)


def _check_softmax_lines(lines, o, h, i, keys, decimals, base):
    """In the order of the work on paper: the row's largest visible score m; e^(s′ − m) for each
    key written out ('j = J: e^(s′ − m) = e', 'j = J: masked, e^(−∞) = 0'); '… and k more keys'
    when some are left out; the sum of every key's exponential; then each weight
    'a_ij = e ÷ sum = **a**'. The sum comes before the lines that divide by it."""
    allowed, m, exps, total = _row_exps(o, h, i)
    n, k = len(exps), len(keys)
    assert_printed(numbers(lines[0]), [m], decimals, lines[0])  # the largest visible score
    exp_lines, rest = lines[1 : 1 + k], lines[1 + k :]
    for j, line in zip(keys, exp_lines, strict=True):
        assert line.startswith(f"j = {j + base}"), line
        values = numbers(line)
        assert values[0] == j + base, line
        if not allowed[j]:
            assert values == [j + base, 0] and "−∞" in line, line  # e^(−∞) = 0
            continue
        assert_printed(values[1:], [o.S_scaled[h, i, j], m, exps[j]], decimals, line)
    if k < n:
        assert numbers(rest[0]) == [n - k], rest[0]  # "… and k more keys"
        rest = rest[1:]
    assert_printed(numbers(rest[0]), [total], decimals, rest[0])  # the exponentials' sum
    weight_lines = rest[1:]
    assert len(weight_lines) == k, weight_lines
    for j, line in zip(keys, weight_lines, strict=True):
        assert line.startswith(f"a{sub(i + base, j + base)} = "), line  # a_ij, not a_j
        e, divisor, a = numbers(line.split(" = ", 1)[1])
        assert_printed([e, divisor], [exps[j], total], decimals, line)
        assert_printed([a], [o.A[h, i, j]], decimals, line)
        if not allowed[j]:
            assert e == 0 and a == 0 and o.A[h, i, j] == 0, line


def _check_output_lines(lines, o, h, i, keys, decimals, base):
    d_v = o.V.shape[-1]
    assert len(lines) == min(d_v, 6)  # the first six components written out
    for c, line in enumerate(lines):
        assert line.startswith(f"o{sub(i + base)}[{c + base}] = "), line
        values = numbers(line.split(" = ", 1)[1])
        terms = np.stack([o.A[h, i, keys], o.V[h, keys, c]], axis=1).ravel()
        assert_printed(values, [*terms, o.O[h, i, c]], decimals, line)


def check_cell_story(step: str, lines: list[str], o, h: int, i: int, j: int, decimals, base):
    """A clicked cell's story: for S … A (depth 1-4) from q_i and k_j; for O, o_i[j]."""
    lines = [_plain(line) for line in lines if line.strip()]
    if step == "av":
        return _check_output_story(lines, o, h, i, j, decimals, base)
    b = base
    assert lines[0].startswith(f"q{sub(i + b)} = ")
    assert_printed(numbers(lines[0].split(" = ", 1)[1]), o.Q[h, i], decimals, lines[0])
    assert lines[1].startswith(f"k{sub(j + b)} = ")
    assert_printed(numbers(lines[1].split(" = ", 1)[1]), o.K[h, j], decimals, lines[1])
    assert not check_dot_line(lines[2], o, h, i, j, decimals, base)
    depth = {"scores": 1, "scaled": 2, "mask": 3, "softmax": 4}[step]
    assert len(lines) >= 2 + depth
    if depth >= 2:  # s_ij ÷ √d_k = s ÷ √d_k = **s′**
        s, root, scaled = numbers(lines[3].split(" = ", 1)[1])
        assert_printed([s, root, scaled], [o.S[h, i, j], math.sqrt(o.d_k), o.S_scaled[h, i, j]],
                       decimals, lines[3])  # fmt: skip
    allowed = True if o.mask is None else bool(o.mask[i, j])
    if depth >= 3:  # mask entry M_ij = 1 or 0
        assert f"M{sub(i + b, j + b)} = {int(allowed)}" in lines[4], lines[4]
    if depth == 4:
        _check_softmax_story(lines[5:], o, h, i, j, decimals, base, allowed)
    else:
        assert len(lines) == 2 + depth


def _check_softmax_story(lines, o, h, i, j, decimals, base, allowed):
    row_allowed, m, exps, total = _row_exps(o, h, i)
    keys = heaviest_keys(o.A[h, i], chosen=j)
    assert_printed(numbers(lines[0]), [m], decimals, lines[0])  # the row's largest value
    terms = [numbers(term) for term in lines[1].split("; ")]  # e^(s′ − m) = e, per visible key
    visible = [k for k in keys if row_allowed[k]]
    assert len(terms) == len(visible), lines[1]
    for k, values in zip(visible, terms, strict=True):
        assert_printed(values, [o.S_scaled[h, i, k], m, exps[k]], decimals, lines[1])
    rest = lines[2:]
    if len(keys) < len(exps):
        assert numbers(rest[0]) == [len(exps) - len(keys)], rest[0]
        rest = rest[1:]
    assert_printed(numbers(rest[0])[-1:], [total], decimals, rest[0])  # the sum ("… add 0 = ")
    a = f"a{sub(i + base, j + base)} = "
    assert rest[1].startswith(a), rest[1]
    if allowed:
        assert_printed(numbers(rest[1].split(" = ", 1)[1]), [exps[j], total, o.A[h, i, j]],
                       decimals, rest[1])  # fmt: skip
    else:
        assert rest[1].startswith(f"{a}0") and o.A[h, i, j] == 0, rest[1]
    assert len(rest) == 2


def _check_output_story(lines, o, h, i, c, decimals, base):
    keys = heaviest_keys(o.A[h, i])
    weights, column, total = lines
    assert_printed(numbers(weights), _labelled(o.A[h, i, keys]), decimals, weights)
    assert_printed(numbers(column), _labelled(o.V[h, keys, c], c + base), decimals, column)
    assert total.startswith(f"o{sub(i + base)}[{c + base}] = Σⱼ a{sub(i + base)}ⱼ vⱼ[{c + base}]")
    values = numbers(total.split(" = ", 2)[2])
    terms = np.stack([o.A[h, i, keys], o.V[h, keys, c]], axis=1).ravel()
    assert_printed(values, [*terms, o.O[h, i, c]], decimals, total)


def _labelled(values, column=None):
    """A list printed as 'a_ik = w; …' or 'v_k[c] = v; …': the [c] of each term is a number too."""
    if column is None:
        return list(values)
    return [x for v in values for x in (column, v)]


def assert_close_printed(text_grid, M, decimals: int, hidden=None) -> None:
    """A heatmap's cell text, cell by cell: M rounded, '−∞' where hidden."""
    grid = np.asarray(text_grid, dtype=object)
    assert grid.shape == M.shape
    for (r, c), shown in np.ndenumerate(grid):
        if hidden is not None and hidden[r, c]:
            continue
        [value] = numbers(shown)
        assert close(value, M[r, c], decimals), f"cell {r},{c}: {shown} vs {M[r, c]}"
