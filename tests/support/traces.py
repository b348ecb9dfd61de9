"""Small traces the tests build the way the app does: tokens embedded, PE added, attended."""

import core


def sentence_attention(tokens, causal: bool = False, d_model: int = 8, n_heads: int = 2):
    """The attention trace of ``tokens`` with the app's default weights (seed 0)."""
    n = len(tokens)
    X = core.embed(list(tokens), d_model) + core.positional_encoding(n, d_model)
    mask = core.causal_mask(n) if causal else None
    W = core.init_weights(core.AttentionConfig(d_model=d_model, n_heads=n_heads))
    return core.attention(X, W, n_heads, mask=mask)
