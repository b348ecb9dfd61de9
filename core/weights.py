"""The projection matrices W_Q, W_K, W_V and W_O of one multi-head attention layer."""

from dataclasses import dataclass
from weakref import WeakKeyDictionary

from core.backend import asarray, like, same_library
from core.config import AttentionConfig
from core.seeding import rounded_weights


@dataclass(frozen=True, eq=False)
class Weights:
    W_Q: object  # [d_model, n_heads * d_k]; head h uses columns h*d_k:(h+1)*d_k
    W_K: object  # [d_model, n_heads * d_k]
    W_V: object  # [d_model, n_heads * d_v]
    W_O: object  # [n_heads * d_v, d_model]

    def like(self, X) -> "Weights":
        """These weights in X's array library (NumPy or CuPy): the computation runs where X is.
        The copy is made once per library and kept as long as these weights are."""
        if all(same_library(W, X) for W in vars(self).values()):
            return self
        copies = _copies.setdefault(self, {})
        if type(X) not in copies:
            copies[type(X)] = Weights(**{name: like(W, X) for name, W in vars(self).items()})
        return copies[type(X)]


_copies: "WeakKeyDictionary[Weights, dict]" = WeakKeyDictionary()  # Weights -> {array type: copy}


def init_weights(config: AttentionConfig, n: int | None = None) -> Weights:
    """Random weights with variance 1/fan_in, rounded to 0.01 so they can be copied onto paper.

    With ``n`` they are placed where a sequence of n tokens is computed (core.active_backend)."""
    d, h = config.d_model, config.n_heads

    def draw(name, rows, cols):
        W = rounded_weights("weights", config.seed, name, rows=rows, cols=cols)
        return asarray(W.astype(config.dtype), n=n)

    return Weights(
        W_Q=draw("W_Q", d, h * config.d_k),  # [d_model, h*d_k]
        W_K=draw("W_K", d, h * config.d_k),  # [d_model, h*d_k]
        W_V=draw("W_V", d, h * config.d_v),  # [d_model, h*d_v]
        W_O=draw("W_O", h * config.d_v, d),  # [h*d_v, d_model]
    )
