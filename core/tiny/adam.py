"""Adam on a dict of arrays, as torch.optim.Adam computes it (no weight decay, no amsgrad):
m = β1 m + (1 − β1) g, v = β2 v + (1 − β2) g², p = p − lr / (1 − β1^t) · m / (√v / √(1 − β2^t) + ε).
"""

import math
from dataclasses import dataclass

import numpy as np

LR = 1e-2
BETAS = (0.9, 0.999)
EPS = 1e-8


@dataclass(frozen=True, eq=False)
class AdamState:
    """Adam's memory: how many steps were taken and the two moving averages, by params key."""

    t: int  # steps taken
    m: dict  # running mean of the gradients
    v: dict  # running mean of the squared gradients


def adam_init(params: dict) -> AdamState:
    """Adam before its first step: both averages zero."""
    zeros = {key: np.zeros_like(p) for key, p in params.items()}
    return AdamState(0, zeros, {key: z.copy() for key, z in zeros.items()})


def adam_step(
    params: dict, grads: dict, state: AdamState, lr: float = LR, betas=BETAS, eps: float = EPS
) -> tuple[dict, AdamState]:
    """(new params, new state) after one Adam step; the inputs are left as they were."""
    beta1, beta2 = betas
    t = state.t + 1
    step_size = lr / (1 - beta1**t)
    root_correction = math.sqrt(1 - beta2**t)
    new_params, m, v = {}, {}, {}
    for key, p in params.items():
        g = grads[key]
        m[key] = beta1 * state.m[key] + (1 - beta1) * g
        v[key] = beta2 * state.v[key] + (1 - beta2) * g * g
        denom = np.sqrt(v[key]) / root_correction + eps
        new_params[key] = p - step_size * m[key] / denom
    return new_params, AdamState(t, m, v)
