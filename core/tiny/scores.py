"""How much a head behaves like a previous-token head or an induction head, read off its
attention map.

previous-token score: the mean weight that query i puts on key i − 1 (i ≥ 1).
induction score: on a sequence whose second part repeats the first ``period`` tokens later, the
mean weight that a query i in the repeat puts on key i − period + 1, the token that followed the
earlier copy of its own token (what an induction head looks up to predict the next one).
Both are in [0, 1]; a clean head of either kind scores near 1.
"""

import numpy as np


def previous_token_score(A: np.ndarray) -> np.ndarray:
    """Mean of A[..., i, i − 1] over i = 1..n − 1; A [..., n, n] -> [...]."""
    n = A.shape[-1]
    i = np.arange(1, n)
    return A[..., i, i - 1].mean(axis=-1)


def induction_score(A: np.ndarray, period: int, first: int) -> np.ndarray:
    """Mean of A[..., i, i − period + 1] over the repeat's queries i = first..n − 1, where each
    token repeats the one ``period`` positions earlier; A [..., n, n] -> [...]."""
    n = A.shape[-1]
    i = np.arange(first, n)
    return A[..., i, i - period + 1].mean(axis=-1)
