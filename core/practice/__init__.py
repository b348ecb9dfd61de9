"""The learner writes attention: one line of NumPy per step, for one head's 2-D matrices of the
current sentence, evaluated safely (core/practice/language.py: ``ast`` and an allow-list, never
eval), checked against the trace, and a wrong result named by the classic mistake it equals.

    v = core.practice.check("S", "Q @ K.T", trace, head=0)
    v.ok, v.mistake, v.error, v.value      # True, None, None, the learner's [n, n]
    check("A", "softmax(S_masked, axis=0)", trace).mistake    # "wrong_axis"
    check("S", "__import__('os')", trace).error               # "practice_forbidden": nothing ran
"""

import math
from dataclasses import dataclass, field

import numpy as np

from core.backend import to_numpy
from core.errors import InputError
from core.practice.language import Walker, parse
from core.softmax import softmax_along

STEPS = ("Q", "K", "V", "S", "S_scaled", "S_masked", "A", "O", "concat", "output")
PER_HEAD = STEPS[:8]
NEEDS_WEIGHTS = frozenset({"Q", "K", "V", "output"})
MISTAKES = (
    "wrong_axis",  # softmax along the query axis: columns sum to 1
    "no_transpose",  # Q @ K: a shape error unless n = d_k
    "no_scale",  # the scores not divided by √d_k
    "scale_d_k",  # divided by d_k, not √d_k
    "scale_d_v",  # divided by √d_v
    "mask_after_softmax",  # softmax over every key, then the forbidden ones zeroed
    "mask_zero",  # 0 where −∞ belongs
    "wrong_matrix",  # K where Q belongs, V where K belongs ...
    "transposed",  # the right matrix, transposed
)
FLOAT64_TOL, FLOAT32_TOL = 1e-12, 1e-5


@dataclass(frozen=True)
class Verdict:
    ok: bool
    mistake: str | None = None  # a MISTAKES key
    error: str | None = None  # an InputError code: the line was refused, or failed
    value: np.ndarray | None = None  # the learner's array
    params: dict = field(default_factory=dict)  # the error's parameters (its message's)
    expected_shape: tuple = ()
    difference: float | None = None  # the largest |learner − trace| where the shapes agree


def names_for(step: str, trace, head: int = 0, weights=None) -> dict:
    """What a line for ``step`` may read: the inputs (X; the head's own W_Q, W_K and W_V columns,
    W_O whole, where ``weights`` are given; the mask, True where allowed; d_k, d_v, n) and every
    step before this one, for head ``head`` (the heads' O together as O_heads from concat on)."""
    Q, V = (to_numpy(getattr(trace, f))[head] for f in ("Q", "V"))
    n, d_k, d_v = Q.shape[0], Q.shape[1], V.shape[1]
    names = {"X": to_numpy(trace.X)}
    if weights is not None:
        (W_Q, W_K, W_V, W_O) = (to_numpy(getattr(weights, w)) for w in ("W_Q", "W_K", "W_V", "W_O"))
        names |= {"W_Q": W_Q[:, head * d_k : (head + 1) * d_k],
                  "W_K": W_K[:, head * d_k : (head + 1) * d_k],
                  "W_V": W_V[:, head * d_v : (head + 1) * d_v], "W_O": W_O}  # fmt: skip
    S_masked = to_numpy(trace.S_masked)[head]
    names |= {"mask": ~np.isneginf(S_masked), "d_k": float(d_k), "d_v": float(d_v), "n": float(n)}
    for before in STEPS[: STEPS.index(step)]:
        if before in PER_HEAD:
            names[before] = to_numpy(getattr(trace, before))[head]
        elif before == "concat":
            names["concat"] = to_numpy(trace.concat)
    if STEPS.index(step) > STEPS.index("O"):
        names["O_heads"] = to_numpy(trace.O)
    return names


def expected(step: str, trace, head: int = 0) -> np.ndarray:
    value = to_numpy(getattr(trace, step))
    return value[head] if step in PER_HEAD else value


def check(step: str, expression: str, trace, head: int = 0, weights=None) -> Verdict:
    """The learner's ``expression`` for ``step`` (an AttentionTrace field) against the trace."""
    if step not in STEPS:
        raise ValueError(f"unknown step {step!r}: one of {STEPS}")
    right = expected(step, trace, head)
    if step in NEEDS_WEIGHTS and weights is None:
        missing = InputError("practice_needs_weights")  # (not raised: said in the verdict)
        return Verdict(False, error=missing.code, expected_shape=right.shape)
    names = names_for(step, trace, head, weights)
    try:
        value = Walker(names).run(parse(expression))
    except InputError as error:
        mistake = "no_transpose" if error.code == "practice_matmul_shape" and error.params.get(
            "fix") else None  # fmt: skip
        return Verdict(False, mistake, error.code, None, error.params, right.shape)
    if not isinstance(value, np.ndarray) or value.dtype == bool:
        value = np.asarray(value, dtype=np.float64)
    value = value.astype(np.float64, copy=False)
    tol = FLOAT64_TOL if right.dtype == np.float64 else FLOAT32_TOL
    difference = _difference(value, right)
    if same(value, right, tol):
        return Verdict(True, value=value, expected_shape=right.shape, difference=difference)
    for mistake, candidate in mistakes(step, names, right):
        if same(value, candidate, tol * 100):
            return Verdict(False, mistake, value=value, expected_shape=right.shape,
                           difference=difference)  # fmt: skip
    return Verdict(False, value=value, expected_shape=right.shape, difference=difference)


def same(value: np.ndarray, right: np.ndarray, tol: float) -> bool:
    """Equal shapes, −∞ (and +∞) at the same places, the finite entries within ``tol`` of the
    largest entry's size."""
    if value.shape != right.shape:
        return False
    right = right.astype(np.float64, copy=False)
    finite = np.isfinite(right)
    if not np.array_equal(np.isfinite(value), finite) or not np.array_equal(
        value[~finite], right[~finite]
    ):
        return False
    scale = max(1.0, float(np.abs(right[finite]).max())) if finite.any() else 1.0
    return bool(np.all(np.abs(value[finite] - right[finite]) <= tol * scale))


def _difference(value, right) -> float | None:
    if value.shape != right.shape:
        return None
    finite = np.isfinite(value) & np.isfinite(right)
    both_inf = (~np.isfinite(value)) & (~np.isfinite(right)) & (value == right)
    if not np.all(finite | both_inf):
        return math.inf
    return float(np.abs(value[finite] - right[finite]).max()) if finite.any() else 0.0


def mistakes(step: str, k: dict, right: np.ndarray):
    """(mistake, what it computes) for ``step``, each from the trace's own arrays."""
    yield "transposed", right.T

    def sm(Z, axis=-1):
        return softmax_along(Z, axis)

    def masked(Z, fill=-math.inf):
        return np.where(k["mask"], Z, fill)

    d_k, d_v, has_mask = k["d_k"], k["d_v"], not k["mask"].all()
    if step in ("Q", "K", "V"):
        for other in {"Q": ("W_K", "W_V"), "K": ("W_Q", "W_V"), "V": ("W_Q", "W_K")}[step]:
            yield "wrong_matrix", k["X"] @ k[other]
        return
    if step == "output":
        return
    if step == "concat":
        yield "wrong_matrix", np.concatenate(list(np.swapaxes(k["O_heads"], 1, 2)), axis=1).T
        return
    Q, K, V = k["Q"], k["K"], k["V"]
    scores = {"Q @ Q.T": Q @ Q.T, "K @ K.T": K @ K.T}
    if Q.shape == V.shape:
        scores |= {"Q @ V.T": Q @ V.T, "V @ K.T": V @ K.T}
    S = Q @ K.T
    no_transpose = Q @ K if Q.shape[1] == K.shape[0] else None
    if step == "S":
        if no_transpose is not None:
            yield "no_transpose", no_transpose
        for wrong in scores.values():
            yield "wrong_matrix", wrong
        return
    scaled = {"no_scale": S, "scale_d_k": S / d_k}
    if d_v != d_k:
        scaled["scale_d_v"] = S / math.sqrt(d_v)
    if step == "S_scaled":
        yield from scaled.items()
        for wrong in scores.values():
            yield "wrong_matrix", wrong / math.sqrt(d_k)
        return
    S_scaled = S / math.sqrt(d_k)
    if step == "S_masked":
        if has_mask:
            yield "mask_zero", masked(S_scaled, 0.0)
        for mistake, wrong in scaled.items():
            yield mistake, masked(wrong)
        return
    S_masked = masked(S_scaled)
    if step == "A":
        yield "wrong_axis", sm(S_masked, -2)
        if has_mask:
            yield "mask_after_softmax", sm(S_scaled) * k["mask"]
            yield "mask_zero", sm(masked(S_scaled, 0.0))
        for mistake, wrong in scaled.items():
            yield mistake, sm(masked(wrong))
        for wrong in scores.values():
            yield "wrong_matrix", sm(masked(wrong / math.sqrt(d_k)))
        return
    A = sm(S_masked)  # step "O"
    yield "transposed", A.T @ V
    yield "wrong_axis", sm(S_masked, -2) @ V
    if has_mask:
        yield "mask_after_softmax", (sm(S_scaled) * k["mask"]) @ V
    for mistake, wrong in scaled.items():
        yield mistake, sm(masked(wrong)) @ V
    for other in (Q, K):
        if other.shape[0] == A.shape[1]:
            yield "wrong_matrix", A @ other
