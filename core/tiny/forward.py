"""The tiny decoder's forward pass over a batch, every intermediate kept for the backward pass.

Named with the paper's symbols, one line per step (core/reference.py is the same attention for
one sentence; the tests hold the two equal):

    h0 = E[x] + P[:n]
    per layer:  Q = h W_Q,  K = h W_K,  V = h W_V     (split into heads [b, heads, n, d_head])
                S = Q Kᵀ,  S_scaled = S / √d_head,  S_masked = causal(S_scaled)
                A = softmax(S_masked)
                O = A V,  concat = heads side by side,  out = concat W_O,  h = h + out
    logits = h W_U;  loss = mean over the target positions t of −log p(x_{t+1} | x_0..x_t)
"""

import math
from dataclasses import dataclass

import numpy as np

from core.errors import InputError
from core.heads import merge_heads, split_heads
from core.softmax import softmax_rows
from core.tiny.model import head_width, layer_key, n_layers_of


@dataclass(frozen=True, eq=False)
class LayerTrace:
    """One layer's intermediates for a batch; b sequences, n positions, d = d_model.

    S_scaled and S_masked are worked out from S when asked for: the backward pass needs only A,
    and a training step then writes two fewer [b, heads, n, n] arrays."""

    h_in: np.ndarray  # [b, n, d]  the residual stream coming in
    Q: np.ndarray  # [b, heads, n, d_head]
    K: np.ndarray  # [b, heads, n, d_head]
    V: np.ndarray  # [b, heads, n, d_head]
    S: np.ndarray  # [b, heads, n, n]  Q Kᵀ
    A: np.ndarray  # [b, heads, n, n]  softmax rows of S_masked; exact 0 above the diagonal
    O: np.ndarray  # [b, heads, n, d_head]  A V
    concat: np.ndarray  # [b, n, d]  the heads side by side, head 0 first
    out: np.ndarray  # [b, n, d]  concat W_O, added to the residual stream
    factor: float  # 1 / √d_head with scaling, else 1

    @property
    def S_scaled(self) -> np.ndarray:
        """[b, heads, n, n]  S / √d_head (S itself without scaling)."""
        return self.S * self.factor

    @property
    def S_masked(self) -> np.ndarray:
        """[b, heads, n, n]  S_scaled with −inf above the diagonal (keys after the query)."""
        return np.where(causal(self.S.shape[-1]), self.S_scaled, -np.inf)


@dataclass(frozen=True, eq=False)
class Forward:
    """A batch's forward pass: the input, every layer's trace, the logits and the loss."""

    tokens: np.ndarray  # [b, n] int
    targets: np.ndarray  # [b, n − 1] bool: which predictions count in the loss
    scale: bool  # True: S / √d_head
    h0: np.ndarray  # [b, n, d]  E[x] + P[:n]
    layers: tuple  # LayerTrace per layer, first layer first
    h: np.ndarray  # [b, n, d]  the residual stream after the last layer
    logits: np.ndarray  # [b, n, vocab]  h W_U
    probs: np.ndarray  # [b, n, vocab]  softmax of each row of logits
    nll: np.ndarray  # [b, n − 1]  −log p(x_{t+1}) at each position t
    loss: float  # mean of nll over the target positions


def check_tokens(params: dict, tokens, targets=None) -> tuple[np.ndarray, np.ndarray]:
    """tokens as int64 [b, n] (2 ≤ n ≤ n_ctx, ids in the vocabulary) and targets as bool
    [b, n − 1] (all True when None, at least one True); InputError otherwise."""
    tokens = np.asarray(tokens)
    vocab, n_ctx = params["E"].shape[0], params["P"].shape[0]
    if tokens.ndim != 2 or not 2 <= tokens.shape[1] <= n_ctx or tokens.shape[0] < 1:
        expected = f"[b, n] with 2 ≤ n ≤ {n_ctx}"
        raise InputError("bad_shape", name="tokens", expected=expected, actual=tokens.shape)
    if not np.issubdtype(tokens.dtype, np.integer) or tokens.min() < 0 or tokens.max() >= vocab:
        raise InputError("bad_shape", name="tokens", expected=f"ids 0..{vocab - 1}", actual="other")
    b, n = tokens.shape
    targets = np.ones((b, n - 1), bool) if targets is None else np.asarray(targets, bool)
    if targets.shape != (b, n - 1) or not targets.any():
        raise InputError("bad_shape", name="targets", expected=(b, n - 1), actual=targets.shape)
    return tokens.astype(np.int64), targets


def rows(M: np.ndarray) -> np.ndarray:
    """[b, n, w] -> [b·n, w]: one matrix product for the whole batch instead of b small ones."""
    return M.reshape(-1, M.shape[-1])


def project(h: np.ndarray, W: np.ndarray) -> np.ndarray:
    """h W for a batch: [b, n, d] @ [d, w] -> [b, n, w]."""
    return (rows(h) @ W).reshape(*h.shape[:-1], W.shape[1])


def causal(n: int) -> np.ndarray:
    """bool [n, n]: query i sees keys j ≤ i."""
    return np.tril(np.ones((n, n), dtype=bool))


def qkv_weights(params: dict, layer: int) -> np.ndarray:
    """[W_Q | W_K | W_V] side by side [d, 3d]: the three projections in one matrix product."""
    return np.concatenate([params[layer_key(layer, name)] for name in ("W_Q", "W_K", "W_V")], 1)


def attention_layer(h: np.ndarray, params: dict, layer: int, n_heads: int, scale: bool):
    """One attention layer on the residual stream h [b, n, d]: its LayerTrace."""
    d = h.shape[-1]
    QKV = project(h, qkv_weights(params, layer))  # [b, n, 3d]: h W_Q, h W_K, h W_V side by side
    Q = split_heads(QKV[..., :d], n_heads)  # [b, heads, n, d_head]
    K = split_heads(QKV[..., d : 2 * d], n_heads)  # [b, heads, n, d_head]
    V = split_heads(QKV[..., 2 * d :], n_heads)  # [b, heads, n, d_head]
    S = Q @ np.swapaxes(K, -1, -2)  # [b, heads, n, n]  s_ij = q_i · k_j
    factor = 1 / math.sqrt(Q.shape[-1]) if scale else 1.0
    A = np.multiply(S, factor)  # S_scaled = S / √d_head, in A's memory
    np.copyto(A, -np.inf, where=~causal(h.shape[1]))  # S_masked: −inf where j > i
    softmax_rows(A, out=A)  # A = softmax(S_masked) row by row, in place  [b, heads, n, n]
    O = A @ V  # [b, heads, n, d_head]
    concat = merge_heads(O)  # [b, n, d]
    out = project(concat, params[layer_key(layer, "W_O")])  # [b, n, d]
    return LayerTrace(h, Q, K, V, S, A, O, concat, out, factor)


def log_softmax(logits: np.ndarray) -> np.ndarray:
    """log softmax of each row, without overflow: z − max − log Σ exp(z − max)."""
    z = logits - logits.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def forward(params: dict, tokens, n_heads: int, scale: bool = True, targets=None) -> Forward:
    """The decoder on a batch of token ids [b, n]; ``targets`` [b, n − 1] bool picks which
    positions' predictions count in the loss (all by default)."""
    head_width(params, n_heads)  # InputError when the heads do not divide d_model
    tokens, targets = check_tokens(params, tokens, targets)
    n = tokens.shape[1]
    h0 = params["E"][tokens] + params["P"][:n]  # [b, n, d]
    h, layers = h0, []
    for layer in range(n_layers_of(params)):
        trace = attention_layer(h, params, layer, n_heads, scale)
        layers.append(trace)
        h = h + trace.out  # [b, n, d]  the residual stream
    logits = project(h, params["W_U"])  # [b, n, vocab]
    logp = log_softmax(logits)  # [b, n, vocab]
    picked = np.take_along_axis(logp[:, :-1], tokens[:, 1:, None], axis=-1)[..., 0]  # [b, n−1]
    nll = -picked
    loss = float(nll[targets].sum() / targets.sum())
    return Forward(tokens, targets, scale, h0, tuple(layers), h, logits, np.exp(logp), nll, loss)
