"""core.practice on random sentences, sizes, heads and masks: right answers written several ways are
accepted for every step, each classic mistake is named from the line a learner would type, the
learner's value equals a per-element loop written here (not core's functions), and no step sees a
name it should not."""

import math
from dataclasses import dataclass

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import core
from core.practice import FLOAT32_TOL, FLOAT64_TOL, MISTAKES, STEPS, check
from core.weights import init_weights

WORDS = ("the", "cat", "sat", "on", "a", "mat", "dog", "ran", "far", "big", "red", "sun", "up")
FIELDS_PER_HEAD = ("Q", "K", "V", "S", "S_scaled", "S_masked", "A", "O")


@dataclass
class Case:
    trace: object
    weights: object
    head: int
    n: int
    d_model: int
    n_heads: int
    d_k: int
    d_v: int
    causal: bool
    dtype: str


@st.composite
def cases(draw, causal=None, n=None, d_k=None, d_v=None, min_d_k=1, dtype=None):
    """A random sentence of distinct words (a repeated word repeats its row of X, which makes
    S symmetric and many mistakes equal to the right answer), its sizes, mask and head."""
    n = draw(st.integers(2, 9)) if n is None else n
    tokens = draw(st.lists(st.sampled_from(WORDS), min_size=n, max_size=n, unique=True))
    n_heads = draw(st.integers(1, 3))
    d_model = draw(st.integers(2, 10))
    d_k = draw(st.integers(min_d_k, 6)) if d_k is None else d_k
    d_v = draw(st.integers(1, 6)) if d_v is None else d_v
    causal = draw(st.booleans()) if causal is None else causal
    dtype = draw(st.sampled_from(("float64", "float64", "float32"))) if dtype is None else dtype
    seed = draw(st.integers(0, 2**16))
    config = core.AttentionConfig(d_model=d_model, n_heads=n_heads, d_k=d_k, d_v=d_v, seed=seed,
                                  dtype=dtype)  # fmt: skip
    X = core.embed(tokens, d_model, seed=seed, dtype=dtype)
    W = init_weights(config)
    trace = core.attention(X, W, n_heads, mask=core.causal_mask(n) if causal else None)
    head = draw(st.integers(0, n_heads - 1))
    return Case(trace, W, head, n, d_model, n_heads, d_k, d_v, causal, dtype)


# -- an independent computation: per-element loops over Python floats -------------------------


def loops(case: Case) -> dict:
    """Every step for ``case.head`` by loops over i, j (and the heads for concat and output)."""
    X = core.to_numpy(case.trace.X).astype(np.float64).tolist()
    Ws = {w: core.to_numpy(getattr(case.weights, w)).astype(np.float64).tolist()
          for w in ("W_Q", "W_K", "W_V", "W_O")}  # fmt: skip
    n, d_model, d_k, d_v = case.n, case.d_model, case.d_k, case.d_v

    def project(W, first, width):
        return [[sum(X[i][m] * W[m][first + c] for m in range(d_model)) for c in range(width)]
                for i in range(n)]  # fmt: skip

    def one_head(h):
        Q = project(Ws["W_Q"], h * d_k, d_k)
        K = project(Ws["W_K"], h * d_k, d_k)
        V = project(Ws["W_V"], h * d_v, d_v)
        S = [[sum(Q[i][t] * K[j][t] for t in range(d_k)) for j in range(n)] for i in range(n)]
        S_scaled = [[S[i][j] / math.sqrt(d_k) for j in range(n)] for i in range(n)]
        allowed = [[(j <= i) or not case.causal for j in range(n)] for i in range(n)]
        S_masked = [[S_scaled[i][j] if allowed[i][j] else -math.inf for j in range(n)]
                    for i in range(n)]  # fmt: skip
        A = []
        for i in range(n):
            top = max(S_masked[i][j] for j in range(n) if allowed[i][j])
            e = [math.exp(S_masked[i][j] - top) if allowed[i][j] else 0.0 for j in range(n)]
            A.append([x / sum(e) for x in e])
        O = [[sum(A[i][j] * V[j][c] for j in range(n)) for c in range(d_v)] for i in range(n)]
        return {"Q": Q, "K": K, "V": V, "S": S, "S_scaled": S_scaled, "S_masked": S_masked,
                "A": A, "O": O}  # fmt: skip

    heads = [one_head(h) for h in range(case.n_heads)]
    concat = [[heads[c // d_v]["O"][i][c % d_v] for c in range(case.n_heads * d_v)]
              for i in range(n)]  # fmt: skip
    W_O = Ws["W_O"]
    output = [[sum(concat[i][c] * W_O[c][m] for c in range(len(W_O))) for m in range(d_model)]
              for i in range(n)]  # fmt: skip
    mine = heads[case.head] | {"concat": concat, "output": output}
    return {step: np.array(value, dtype=np.float64) for step, value in mine.items()}


def assert_close(value: np.ndarray, mine: np.ndarray, dtype: str):
    assert value.shape == mine.shape
    np.testing.assert_array_equal(np.isneginf(value), np.isneginf(mine))
    finite = np.isfinite(mine)
    assert np.isfinite(value[finite]).all()
    tol = 1e-9 if dtype == "float64" else 2e-4
    scale = max(1.0, float(np.abs(mine[finite]).max()))
    assert np.abs(value[finite] - mine[finite]).max() <= tol * scale


# -- right answers ----------------------------------------------------------------------------

MANUAL_SOFTMAX = (
    "np.exp(S_masked - S_masked.max(axis=-1, keepdims=True)) / "
    "np.exp(S_masked - S_masked.max(axis=-1, keepdims=True)).sum(axis=-1, keepdims=True)"
)
RIGHT = {
    "Q": ("X @ W_Q", "np.matmul(X, W_Q)", "(W_Q.T @ X.T).T", "Q = X @ W_Q"),
    "K": ("X @ W_K", "np.matmul(X, W_K)", "(W_K.T @ X.T).T", "K = np.transpose(W_K.T @ X.T)"),
    "V": ("X @ W_V", "np.matmul(X, W_V)", "(W_V.T @ X.T).T", "V=X@W_V"),
    "S": ("Q @ K.T", "np.matmul(Q, K.T)", "(K @ Q.T).T", "S = Q @ np.transpose(K)"),
    "S_scaled": (
        "S / np.sqrt(d_k)",
        "S / d_k ** 0.5",
        "S * d_k ** -0.5",
        "S / np.sqrt(K.shape[1])",
        "Q @ K.T / np.sqrt(Q.shape[-1])",
    ),  # fmt: skip
    "S_masked": (
        "np.where(mask, S_scaled, -np.inf)",
        "np.where(mask == 0, -np.inf, S_scaled)",
        "S_scaled + np.where(mask, 0, -np.inf)",
        "S_masked = np.where(mask, S / np.sqrt(d_k), -np.inf)",
    ),  # fmt: skip
    "A": (
        "softmax(S_masked, axis=-1)",
        "softmax(S_masked, axis=1)",
        MANUAL_SOFTMAX,
        "A = softmax(S_masked, axis=-1)",
        "np.exp(S_masked - S_masked.max(axis=1, keepdims=True)) / "
        "np.exp(S_masked - S_masked.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True)",
    ),
    "O": ("A @ V", "np.matmul(A, V)", "(V.T @ A.T).T", "O = A @ V"),
    "concat": (
        "np.concatenate(O_heads, axis=1)",
        "np.concatenate(O_heads, axis=-1)",
        "concat = np.concatenate(O_heads, axis=1)",
    ),  # fmt: skip
    "output": ("concat @ W_O", "np.matmul(concat, W_O)", "(W_O.T @ concat.T).T"),
}


def test_every_step_has_right_answers_here():
    assert set(RIGHT) == set(STEPS)
    assert all(len(lines) >= 3 for lines in RIGHT.values())


@settings(deadline=None, max_examples=80)
@given(case=cases())
def test_right_answers_are_accepted_and_equal_the_loops(case):
    mine = loops(case)
    for step in STEPS:
        for line in RIGHT[step]:
            verdict = check(step, line, case.trace, head=case.head, weights=case.weights)
            assert verdict.ok, (step, line, verdict)
            assert verdict.mistake is None and verdict.error is None
            assert verdict.expected_shape == mine[step].shape
            assert_close(verdict.value, mine[step], case.dtype)


@settings(deadline=None, max_examples=40)
@given(case=cases())
def test_the_trace_itself_equals_the_loops(case):
    """The independent loops agree with the trace they are compared with (so a right answer is
    accepted because it is right, not because both sides share a mistake)."""
    mine = loops(case)
    for step in STEPS:
        value = core.to_numpy(getattr(case.trace, step))
        value = value[case.head] if step in FIELDS_PER_HEAD else value
        assert_close(value.astype(np.float64), mine[step], case.dtype)


# -- the classic mistakes ---------------------------------------------------------------------


def named(case: Case, step: str, line: str):
    return check(step, line, case.trace, head=case.head, weights=case.weights)


def apart(a: np.ndarray, b: np.ndarray, dtype: str) -> bool:
    """Farther apart than the check's tolerance for naming a mistake (core.practice: 100 times
    its tolerance, relative to the largest entry), so the check can tell the two apart."""
    if a.shape != b.shape:
        return True
    if not np.array_equal(np.isneginf(a), np.isneginf(b)):
        return True
    finite = np.isfinite(a) & np.isfinite(b)
    tol = 100 * (FLOAT64_TOL if dtype == "float64" else FLOAT32_TOL)
    scale = max(1.0, float(np.abs(b[finite]).max(initial=0.0)))
    return float(np.abs(a[finite] - b[finite]).max(initial=0.0)) > 2 * tol * scale


def assert_named(case: Case, step: str, line: str, mistake: str, wrong: np.ndarray | None,
                 before=()):  # fmt: skip
    """The line is wrong, named ``mistake``; ``wrong`` (computed here) is what it must equal.
    ``before``: what a mistake tried earlier computes; where random inputs bring one of them
    (or the right answer) within the check's tolerance of ``wrong``, the case is not used."""
    right = loops(case)[step]
    if wrong is not None:
        assume(all(apart(wrong, other, case.dtype) for other in (right, *before)))
    verdict = named(case, step, line)
    assert not verdict.ok
    assert verdict.error is None, verdict
    assert verdict.mistake == mistake, (line, verdict.mistake)
    if wrong is not None:
        assert_close(verdict.value, wrong, case.dtype)


def rowwise_softmax(Z: np.ndarray, axis: int = -1) -> np.ndarray:
    """softmax by loops (over rows or, with axis 0, columns), −∞ weight 0."""
    Z = Z if axis in (-1, 1) else Z.T
    out = np.zeros_like(Z)
    for i in range(Z.shape[0]):
        top = max(z for z in Z[i] if z != -math.inf)
        e = [math.exp(z - top) if z != -math.inf else 0.0 for z in Z[i]]
        out[i] = [x / sum(e) for x in e]
    return out if axis in (-1, 1) else out.T


def test_every_mistake_is_tested_here():
    tested = {"wrong_axis", "no_transpose", "no_scale", "scale_d_k", "scale_d_v",
              "mask_after_softmax", "mask_zero", "wrong_matrix", "transposed"}  # fmt: skip
    assert tested == set(MISTAKES)


@settings(deadline=None, max_examples=60)
@given(case=cases())
def test_wrong_axis(case):
    mine = loops(case)
    wrong = rowwise_softmax(mine["S_masked"], axis=0)
    # n = 2 without a mask: the columns' softmax is Aᵀ itself when s₀₁ = s₁₀ ("transposed",
    # tried first), and within the check's tolerance when they are close
    assert_named(case, "A", "softmax(S_masked, axis=0)", "wrong_axis", wrong, [mine["A"].T])
    assert_named(case, "O", "softmax(S_masked, axis=0) @ V", "wrong_axis", wrong @ mine["V"],
                 [mine["A"].T @ mine["V"]])  # fmt: skip


@settings(deadline=None, max_examples=60)
@given(case=cases())
def test_no_transpose_is_a_shape_error_when_n_is_not_d_k(case):
    assume(case.n != case.d_k)
    verdict = named(case, "S", "Q @ K")
    assert not verdict.ok and verdict.value is None
    assert verdict.error == "practice_matmul_shape"
    assert verdict.mistake == "no_transpose"
    assert verdict.params["inner_a"] == case.d_k and verdict.params["inner_b"] == case.n
    assert verdict.params["fix"] == "K"
    verdict = named(case, "S", "np.matmul(Q, K)")
    assert (verdict.error, verdict.mistake) == ("practice_matmul_shape", "no_transpose")


@settings(deadline=None, max_examples=40)
@given(data=st.data())
def test_no_transpose_when_n_equals_d_k_is_q_times_k(data):
    n = data.draw(st.integers(2, 6))
    case = data.draw(cases(n=n, d_k=n))
    mine = loops(case)
    assert_named(case, "S", "Q @ K", "no_transpose", mine["Q"] @ mine["K"])


@settings(deadline=None, max_examples=60)
@given(case=cases(min_d_k=2))
def test_no_scale_and_scale_d_k(case):
    mine = loops(case)
    assert_named(case, "S_scaled", "S", "no_scale", mine["S"])
    assert_named(case, "S_scaled", "Q @ K.T", "no_scale", mine["S"])
    assert_named(case, "S_scaled", "S / d_k", "scale_d_k", mine["S"] / case.d_k)
    assert_named(case, "S_scaled", "S / K.shape[1]", "scale_d_k", mine["S"] / case.d_k)
    unscaled = np.where(np.isneginf(mine["S_masked"]), -np.inf, mine["S"])
    assert_named(case, "A", "softmax(np.where(mask, S, -np.inf), axis=-1)", "no_scale",
                 rowwise_softmax(unscaled))  # fmt: skip


@st.composite
def d_v_apart(draw):
    """d_v whose √ is neither 1, √d_k nor d_k: S/√d_v is then no other mistake."""
    d_k = draw(st.integers(1, 5))
    d_v = draw(st.integers(2, 7).filter(lambda v: v not in (d_k, d_k * d_k)))
    return draw(cases(d_k=d_k, d_v=d_v))


@settings(deadline=None, max_examples=60)
@given(case=d_v_apart())
def test_scale_d_v(case):
    mine = loops(case)
    assert case.d_v != case.d_k
    wrong = mine["S"] / math.sqrt(case.d_v)
    assert_named(case, "S_scaled", "S / np.sqrt(d_v)", "scale_d_v", wrong)
    assert_named(case, "S_scaled", "S / np.sqrt(V.shape[1])", "scale_d_v", wrong)
    masked = np.where(np.isneginf(mine["S_masked"]), -np.inf, wrong)
    assert_named(case, "S_masked", "np.where(mask, S / np.sqrt(d_v), -np.inf)", "scale_d_v",
                 masked)  # fmt: skip


@settings(deadline=None, max_examples=60)
@given(case=cases(causal=True))
def test_mask_after_softmax(case):
    mine = loops(case)
    allowed = ~np.isneginf(mine["S_masked"])
    wrong = rowwise_softmax(mine["S_scaled"]) * allowed
    assert_named(case, "A", "softmax(S_scaled, axis=-1) * mask", "mask_after_softmax", wrong)
    assert_named(case, "A", "np.where(mask, softmax(S_scaled, axis=-1), 0)",
                 "mask_after_softmax", wrong)  # fmt: skip
    assert_named(case, "O", "(softmax(S_scaled, axis=-1) * mask) @ V", "mask_after_softmax",
                 wrong @ mine["V"])  # fmt: skip


@settings(deadline=None, max_examples=60)
@given(case=cases(causal=True))
def test_mask_zero(case):
    mine = loops(case)
    zeroed = np.where(np.isneginf(mine["S_masked"]), 0.0, mine["S_scaled"])
    assert_named(case, "S_masked", "np.where(mask, S_scaled, 0)", "mask_zero", zeroed)
    assert_named(case, "S_masked", "S_scaled * mask", "mask_zero", zeroed)
    assert_named(case, "A", "softmax(np.where(mask, S_scaled, 0), axis=-1)", "mask_zero",
                 rowwise_softmax(zeroed))  # fmt: skip


@settings(deadline=None, max_examples=30)
@given(case=cases(causal=False))
def test_mask_zero_without_a_mask_is_the_right_answer(case):
    """No mask: nothing to fill, so the 'mask_zero' line is simply right (never a mistake)."""
    assert named(case, "S_masked", "np.where(mask, S_scaled, 0)").ok
    assert named(case, "A", "softmax(np.where(mask, S_scaled, 0), axis=-1)").ok


@settings(deadline=None, max_examples=60)
@given(case=cases(min_d_k=2))
def test_wrong_matrix(case):
    mine = loops(case)
    assert_named(case, "S", "Q @ Q.T", "wrong_matrix", mine["Q"] @ mine["Q"].T)
    assert_named(case, "S", "K @ K.T", "wrong_matrix", mine["K"] @ mine["K"].T)
    W_K = core.to_numpy(case.weights.W_K)[:, case.head * case.d_k : (case.head + 1) * case.d_k]
    X = core.to_numpy(case.trace.X)
    assert_named(case, "Q", "X @ W_K", "wrong_matrix", X.astype(np.float64) @ W_K)
    W_Q = core.to_numpy(case.weights.W_Q)[:, case.head * case.d_k : (case.head + 1) * case.d_k]
    assert_named(case, "K", "X @ W_Q", "wrong_matrix", X.astype(np.float64) @ W_Q)


@settings(deadline=None, max_examples=60)
@given(case=cases(min_d_k=2))
def test_transposed(case):
    mine = loops(case)
    assert_named(case, "S", "K @ Q.T", "transposed", mine["S"].T)
    assert_named(case, "S", "S = np.matmul(K, Q.T)", "transposed", mine["S"].T)
    assert_named(case, "O", "A.T @ V", "transposed", mine["A"].T @ mine["V"])


@settings(deadline=None, max_examples=40)
@given(case=cases())
def test_a_wrong_line_that_is_no_classic_mistake_is_unnamed(case):
    verdict = named(case, "S", "Q @ K.T + 1")
    assert not verdict.ok and verdict.mistake is None and verdict.error is None
    assert math.isclose(verdict.difference, 1.0, abs_tol=1e-4)


# -- what each step may see -------------------------------------------------------------------


@settings(deadline=None, max_examples=40)
@given(case=cases())
def test_the_current_step_and_later_ones_are_not_visible(case):
    for i, step in enumerate(STEPS):
        for later in STEPS[i:]:
            verdict = named(case, step, later)
            assert verdict.error == "practice_unknown_name", (step, later, verdict)
            assert verdict.params["name"] == later
        for before in STEPS[:i]:
            if before in FIELDS_PER_HEAD or before == "concat":
                assert named(case, step, before).error is None, (step, before)
        heads = named(case, step, "O_heads").error
        assert heads == (None if i > STEPS.index("O") else "practice_unknown_name")


@settings(deadline=None, max_examples=20)
@given(case=cases())
def test_without_weights(case):
    for step in ("Q", "K", "V", "output"):
        assert check(step, RIGHT[step][0], case.trace, head=case.head).error == (
            "practice_needs_weights"
        )
    for name in ("W_Q", "W_K", "W_V", "W_O"):
        verdict = check("S", name, case.trace, head=case.head)
        assert verdict.error == "practice_unknown_name"
    assert check("S", "Q @ K.T", case.trace, head=case.head).ok
