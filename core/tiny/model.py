"""The tiny decoder's parameters: embeddings, each layer's W_Q, W_K, W_V, W_O, and the unembedding.

Attention only (no norm, no MLP), in float64, small enough to train on a laptop's CPU in seconds:

    h = E[x] + P[:n]
    per layer: h = h + concat_heads(softmax(causal(Q Kᵀ / √d_head)) V) W_O,  Q = h W_Q, ...
    logits = h W_U

Every array is named as the paper names it and kept in one flat dict, so that gradients, Adam's
moments and a page's sliders all use the same keys.
"""

from core.config import check_positive
from core.errors import InputError
from core.seeding import rng_for

PROJECTIONS = ("W_Q", "W_K", "W_V", "W_O")

# Standard deviations of the initial weights: 1/√fan_in for the projections and the unembedding
# (each product starts with entries of about the size of its input's); the embeddings start at
# EMBED_STD, token and position alike, so that neither drowns the other.
EMBED_STD = 1.0


def layer_key(layer: int, name: str) -> str:
    """The params key of one layer's projection: layer_key(1, "W_Q") == "layers.1.W_Q"."""
    return f"layers.{layer}.{name}"


def check_sizes(vocab: int, n_ctx: int, d_model: int, n_heads: int, n_layers: int) -> None:
    """InputError unless every size is a positive whole number and the heads divide d_model."""
    for name, value in (
        ("vocab", vocab),
        ("n_ctx", n_ctx),
        ("d_model", d_model),
        ("n_heads", n_heads),
        ("n_layers", n_layers),
    ):
        check_positive(name, value)
    if d_model % n_heads:
        raise InputError("heads_do_not_divide", d_model=d_model, n_heads=n_heads)


def init(seed: int, vocab: int, n_ctx: int, d_model: int, n_heads: int, n_layers: int) -> dict:
    """Fresh float64 parameters, the same for the same arguments in every process.

    Keys: "E" [vocab, d], "P" [n_ctx, d], "layers.{i}.W_Q" / W_K / W_V / W_O [d, d] (head h uses
    columns h·d/n_heads:(h+1)·d/n_heads of W_Q, W_K, W_V and those rows of W_O), "W_U" [d, vocab].
    """
    check_sizes(vocab, n_ctx, d_model, n_heads, n_layers)

    def draw(name, rows, cols, std):
        rng = rng_for("tiny", seed, vocab, n_ctx, d_model, n_heads, n_layers, name)
        return rng.normal(0.0, std, (rows, cols))

    params = {
        "E": draw("E", vocab, d_model, EMBED_STD),
        "P": draw("P", n_ctx, d_model, EMBED_STD),
    }
    for i in range(n_layers):
        for name in PROJECTIONS:
            key = layer_key(i, name)
            params[key] = draw(key, d_model, d_model, d_model**-0.5)
    params["W_U"] = draw("W_U", d_model, vocab, d_model**-0.5)
    return params


def n_layers_of(params: dict) -> int:
    """How many layers these parameters hold."""
    return sum(1 for key in params if key.endswith(".W_Q"))


def head_width(params: dict, n_heads: int) -> int:
    """d_head = d_model / n_heads for these parameters (InputError when the heads do not divide)."""
    vocab, d_model = params["E"].shape
    check_sizes(vocab, params["P"].shape[0], d_model, n_heads, max(n_layers_of(params), 1))
    return d_model // n_heads
