"""How many sequential steps information from token 0 needs to reach token n − 1.

An RNN passes it along one token a step: n − 1 steps. A convolution with kernel k lets each
layer look k − 1 tokens further back, so its reach grows by k − 1 a layer:
ceil((n − 1) / (k − 1)) layers. Self-attention connects every pair in one step.
"""

import math


def rnn_steps(n: int) -> int:
    """h_t needs h_{t-1}: from token 0 to token n − 1 is n − 1 steps."""
    return max(n - 1, 0)


def cnn_layers(n: int, k: int) -> int:
    """Stacked convolutions with kernel k (k ≥ 2): layers until token n − 1 sees token 0."""
    if k < 2:
        raise ValueError("a kernel of size 1 never reaches another token")
    return math.ceil(max(n - 1, 0) / (k - 1))


def attention_steps(n: int) -> int:
    """Every query looks at every key in one layer: 1 step (0 for a single token)."""
    return 1 if n > 1 else 0
