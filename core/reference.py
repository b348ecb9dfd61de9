"""Multi-head self-attention as the paper writes it: one line per step, every intermediate kept.

The walkthrough shows these very lines beside each formula. core.attention computes the same
numbers with less memory for long sentences (core/fast.py); the tests hold the two equal.
"""

import math

from array_api_compat import array_namespace

from core.heads import merge_heads, split_heads
from core.softmax import softmax_rows
from core.trace import AttentionTrace


def attention(X, W, n_heads, mask=None) -> AttentionTrace:
    """softmax(Q Kᵀ / √d_k) V for every head, then W_O. X [n, d_model]; mask True = allowed."""
    xp = array_namespace(X)
    Q = split_heads(X @ W.W_Q, n_heads)  # [h, n, d_k]
    K = split_heads(X @ W.W_K, n_heads)  # [h, n, d_k]
    V = split_heads(X @ W.W_V, n_heads)  # [h, n, d_v]
    S = Q @ xp.matrix_transpose(K)  # [h, n, n]  s_ij = q_i · k_j
    S_scaled = S / math.sqrt(Q.shape[-1])  # [h, n, n]
    S_masked = S_scaled if mask is None else xp.where(mask, S_scaled, -math.inf)  # [h, n, n]
    A = softmax_rows(S_masked)  # [h, n, n]  each row sums to 1 over its allowed keys
    O = A @ V  # [h, n, d_v]  o_i = Σ_j a_ij v_j
    concat = merge_heads(O)  # [n, h·d_v]
    output = concat @ W.W_O  # [n, d_model]
    return AttentionTrace(X, Q, K, V, S, S_scaled, S_masked, A, O, concat, output)
