"""The next token from a decoder's logits, step by step as the generate page shows it:
logits → ÷ T → softmax → keep the top k, then the smallest set reaching p → renormalise → pick
(the argmax, or a draw from a seeded generator)."""

from dataclasses import dataclass

import numpy as np

from core.softmax import softmax_rows

RANKED = 1024  # ids put in order at each step (the bars show 10, top-k keeps at most 200); all
# of them only when top-p needs more to reach p: sorting 262 144 logits took 40 ms a step


@dataclass(frozen=True)
class NextToken:
    order: np.ndarray  # token ids, most likely first: the top RANKED, or as many as top-p needed
    logits: np.ndarray  # [vocab] the model's scores
    scaled: np.ndarray  # [vocab] logits ÷ T
    p: np.ndarray  # [vocab] softmax(logits ÷ T)
    kept: np.ndarray  # [vocab] bool: inside top-k and top-p
    q: np.ndarray  # [vocab] p renormalised over the kept tokens (0 elsewhere)


@dataclass(frozen=True)
class Candidates:
    """The few most likely of a NextToken, what a page shows of it (a few hundred bytes where the
    whole distribution is six arrays of the vocabulary's size): each one's id, logit, logit ÷ T,
    p, whether the rules kept it and q; and how many the rules kept of how many."""

    ids: np.ndarray
    logits: np.ndarray
    scaled: np.ndarray
    p: np.ndarray
    kept: np.ndarray
    q: np.ndarray
    kept_count: int
    vocab: int


def candidates(dist: NextToken, count: int) -> Candidates:
    """``dist``'s ``count`` most likely, in order."""
    ids = dist.order[:count].copy()
    rows = (dist.logits[ids], dist.scaled[ids], dist.p[ids], dist.kept[ids], dist.q[ids])
    return Candidates(ids, *rows, int(dist.kept.sum()), int(dist.p.size))


def next_token(logits, temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0) -> NextToken:
    """The distribution the next token is drawn from. ``temperature`` 0 keeps only the argmax;
    ``top_k`` 0 keeps every token; ``top_p`` 1 keeps every token."""
    logits = np.asarray(logits, dtype=np.float64)
    order = most_likely(logits, RANKED)
    if temperature <= 0:
        scaled = np.where(np.arange(logits.size) == order[0], 0.0, -np.inf)
    else:
        scaled = logits / temperature
    p = softmax_rows(scaled)
    kept = np.zeros(logits.size, bool)
    ranked = p[order]
    count = logits.size if top_k <= 0 else min(top_k, logits.size)
    if temperature <= 0:
        count = 1  # T → 0: the argmax alone
    if top_p < 1.0:  # the smallest set, most likely first, whose total reaches p
        if ranked.sum() < top_p:  # beyond the ids in order: all of them, then
            order = most_likely(logits, logits.size)
            ranked = p[order]
        reach = int(np.searchsorted(np.cumsum(ranked), top_p, side="left")) + 1
        count = min(count, reach)
    if count >= logits.size:
        kept[:] = True  # every token: no order needed beyond the bars'
    else:
        if count > order.size:  # a top-k past the ids in order
            order = most_likely(logits, count)
        kept[order[:count]] = True
    q = np.where(kept, p, 0.0)
    return NextToken(order, logits, scaled, p, kept, q / q.sum())


def most_likely(logits, count: int) -> np.ndarray:
    """The ``count`` most likely ids, most likely first and tied ones by id: what
    ``np.argsort(-logits, kind="stable")[:count]`` gives, sorting only those."""
    if count >= logits.size:
        return np.argsort(-logits, kind="stable")
    threshold = np.partition(logits, logits.size - count)[logits.size - count]
    ids = np.flatnonzero(logits >= threshold)  # in id order: a stable sort keeps ties so
    return ids[np.argsort(-logits[ids], kind="stable")][:count]


def pick(dist: NextToken, rng: np.random.Generator | None = None) -> int:
    """The most likely kept token (``rng`` None: greedy), or a draw from ``dist.q``."""
    if rng is None:
        return int(dist.order[0])
    return int(rng.choice(dist.q.size, p=dist.q))
