"""The rest of a Transformer block around attention (post-norm, as in the original paper):

    H = X + MultiHead(X)        a residual connection
    N = LayerNorm(H)            each row to mean 0, variance 1
    F = ReLU(N W_1 + b_1) W_2 + b_2   the position-wise feed-forward network (same W on every row)
    Y = LayerNorm(N + F)        a second residual, a second LayerNorm

LayerNorm here has no learned scale or shift (γ = 1, β = 0), so every number can be checked by hand.
"""

from dataclasses import dataclass

import numpy as np

from core.seeding import rounded_weights

EPS = 1e-5  # LayerNorm's ε, as in PyTorch's default
FF_WIDTH = 4  # d_ff = 4 · d_model, as in the paper (2048 = 4 · 512)


@dataclass(frozen=True)
class FeedForward:
    W_1: np.ndarray  # [d_model, d_ff]
    b_1: np.ndarray  # [d_ff]
    W_2: np.ndarray  # [d_ff, d_model]
    b_2: np.ndarray  # [d_model]


@dataclass(frozen=True)
class BlockTrace:
    X: np.ndarray  # [n, d_model] the block's input
    attention: np.ndarray  # [n, d_model] MultiHead(X) = Concat(O_0 … O_{h−1}) W_O
    H: np.ndarray  # X + MultiHead(X)
    N: np.ndarray  # LayerNorm(H)
    hidden: np.ndarray  # [n, d_ff] ReLU(N W_1 + b_1)
    F: np.ndarray  # hidden W_2 + b_2
    Y: np.ndarray  # LayerNorm(N + F): the block's output, the next block's input


def layer_norm(Z: np.ndarray, eps: float = EPS) -> np.ndarray:
    """Each row minus its mean, divided by its standard deviation (population variance + ε)."""
    mean = Z.mean(axis=-1, keepdims=True)
    var = Z.var(axis=-1, keepdims=True)
    return (Z - mean) / np.sqrt(var + eps)


def init_feed_forward(d_model: int, seed: int) -> FeedForward:
    """Random W_1, W_2 with variance 1/fan_in, rounded to 0.01 like the attention weights."""
    d_ff = FF_WIDTH * d_model

    def draw(name, rows, cols):
        return rounded_weights("feed_forward", seed, name, rows=rows, cols=cols)

    return FeedForward(
        W_1=draw("W_1", d_model, d_ff),
        b_1=np.round(draw("b_1", 1, d_ff)[0] * 0.1, 2),
        W_2=draw("W_2", d_ff, d_model),
        b_2=np.round(draw("b_2", 1, d_model)[0] * 0.1, 2),
    )


def feed_forward(N: np.ndarray, ff: FeedForward) -> tuple[np.ndarray, np.ndarray]:
    """(hidden, F): two matrix products for all rows at once, the same matrices for every row."""
    hidden = np.maximum(N @ ff.W_1 + ff.b_1, 0.0)
    return hidden, hidden @ ff.W_2 + ff.b_2


def block(X: np.ndarray, attention_out: np.ndarray, ff: FeedForward) -> BlockTrace:
    """Every intermediate of one post-norm Transformer block, given X and MultiHead(X)."""
    X = np.asarray(X, dtype=np.float64)
    attention_out = np.asarray(attention_out, dtype=np.float64)
    H = X + attention_out
    N = layer_norm(H)
    hidden, F = feed_forward(N, ff)
    return BlockTrace(X, attention_out, H, N, hidden, F, layer_norm(N + F))
