"""Attention one head and one query token at a time, exactly as the per-token formula reads.

Deliberately independent of core.attention (its own softmax, no n x n matrix products), so that
each can check the other.
"""

import math

from array_api_compat import array_namespace

from core.backend import like
from core.checks import validate
from core.trace import AttentionTrace
from core.weights import Weights


def _attend_token(q_i, K, V, allowed_i, d_k: int, xp) -> dict:
    """Row i of S, S/sqrt(d_k), masked S and A, and output_i, for one query vector q_i [d_k]."""
    s_i = xp.sum(q_i * K, axis=-1)  # s_ij = q_i . k_j for every key j -> [n]
    t_i = s_i / math.sqrt(d_k)  # [n]
    m_i = xp.where(allowed_i, t_i, -math.inf)  # [n]
    if bool(xp.any(allowed_i)):
        top = xp.max(m_i)  # the largest allowed score (finite: at least one key is allowed)
        e_i = xp.where(allowed_i, xp.exp(m_i - top), 0.0)  # e^(s_ij - max), 0 where forbidden
        a_i = e_i / xp.sum(e_i)  # [n], sums to 1 over the allowed keys
    else:
        a_i = xp.zeros_like(t_i)  # no key to look at: nothing to average
    o_i = xp.sum(a_i[:, None] * V, axis=0)  # output_i = sum_j a_ij v_j -> [d_v]
    return {"S": s_i, "S_scaled": t_i, "S_masked": m_i, "A": a_i, "O": o_i}


def _attend_sentence(X, weights: Weights, n_heads: int, allowed, d_k: int, d_v: int, xp) -> dict:
    """Every field of the trace for X [n, d_model], one head and one query token at a time."""
    n = X.shape[0]
    names = ("Q", "K", "V", "S", "S_scaled", "S_masked", "A", "O")
    per_head = {name: [] for name in names}
    for h in range(n_heads):
        Q = X @ weights.W_Q[:, h * d_k : (h + 1) * d_k]  # [n, d_k]
        K = X @ weights.W_K[:, h * d_k : (h + 1) * d_k]  # [n, d_k]
        V = X @ weights.W_V[:, h * d_v : (h + 1) * d_v]  # [n, d_v]
        rows = [_attend_token(Q[i, :], K, V, allowed[i, :], d_k, xp) for i in range(n)]
        for name, M in (("Q", Q), ("K", K), ("V", V)):
            per_head[name].append(M)
        for name in names[3:]:
            per_head[name].append(xp.stack([row[name] for row in rows]))  # [n, .]
    fields = {name: xp.stack(value) for name, value in per_head.items()}  # [h, n, .]
    fields["concat"] = xp.concat(per_head["O"], axis=-1)  # [n, h*d_v], head 0 first
    fields["output"] = fields["concat"] @ weights.W_O  # [n, d_model]
    return fields


def attention_loop(X, weights: Weights, n_heads: int, mask=None) -> AttentionTrace:
    """Same fields as core.attention, computed head by head and query token by query token."""
    weights, mask = weights.like(X), like(mask, X)  # computed where X lives
    xp = array_namespace(X, weights.W_Q)
    d_k, d_v = validate(X, weights, n_heads, mask)
    sentences = [X] if X.ndim == 2 else [X[s, ...] for s in range(X.shape[0])]
    n = X.shape[-2]
    if mask is None:
        mask = xp.ones((n, n), dtype=xp.bool)
    allowed = xp.broadcast_to(mask, (len(sentences), n, n))  # [b, n, n]
    results = [
        _attend_sentence(X_s, weights, n_heads, allowed[s, ...], d_k, d_v, xp)
        for s, X_s in enumerate(sentences)
    ]
    if X.ndim == 2:
        fields = results[0]
    else:
        fields = {name: xp.stack([r[name] for r in results]) for name in results[0]}
    return AttentionTrace(X=X, **fields, heads=tuple(range(n_heads)))
