"""core.attention: the readable reference for a sentence, the fast path where size calls for it."""

from dataclasses import replace

import numpy as np

from core import fast, reference, threads
from core.backend import like
from core.checks import check_no_overflow, scores_cannot_overflow, validate
from core.trace import FIELDS
from core.weights import Weights

# While the scores of every head have fewer cells than threads.PARALLEL_FROM (every sentence a
# learner types: h·n² < 2^20, n up to 362 with 8 heads), core/reference.py runs as written, and the
# walkthrough shows the very lines that computed its numbers. Larger problems, batches, and callers
# who keep fewer fields or heads go through core/fast.py, which computes the same numbers (bit for
# bit on NumPy below PARALLEL_FROM; above it, its products, the projections included, in blocks of
# rows on every core, to float rounding: tests/core/test_attention.py).
REFERENCE_UP_TO_N = 512


def attention(X, weights: Weights, n_heads: int, mask=None, *, keep=FIELDS, heads=None):
    """Multi-head self-attention of X; returns an AttentionTrace holding the fields in ``keep``.

    ``heads`` limits the per-head fields to those heads (the output still uses every head when
    "output" or "concat" is kept). Keeping fewer n x n fields lets large n fit in little memory.

    Finite input that overflows on the way (Q, K, V, S, O or the output leaving the dtype's range)
    is refused with InputError "overflow", naming the step: the trace shows real numbers or none.
    """
    simple = X.ndim == 2 and (mask is None or mask.ndim == 2) and heads is None
    small = X.shape[0] <= REFERENCE_UP_TO_N and n_heads * X.shape[0] ** 2 < threads.PARALLEL_FROM
    if not (simple and set(FIELDS) <= set(keep) and small):
        return fast.attention_blocked(X, weights, n_heads, mask, keep=keep, heads=heads)
    weights, mask = weights.like(X), like(mask, X)  # computed where X lives
    validate(X, weights, n_heads, mask)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is checked step by step
        trace = reference.attention(X, weights, n_heads, mask)
    checks = [("Q = X W_Q", trace.Q), ("K = X W_K", trace.K), ("V = X W_V", trace.V)]
    if not scores_cannot_overflow(trace.Q, trace.K):  # only then is the n x n pass needed
        checks.append(("S = Q Kᵀ", trace.S))
    checks += [("O = A V", trace.O), ("output = concat W_O", trace.output)]
    for step, M in checks:
        check_no_overflow(step, M)
    return replace(trace, heads=tuple(range(n_heads)))
