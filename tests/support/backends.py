"""Arrays moved between NumPy and the namespace a core test runs on (tests/core/conftest.py)."""

import numpy as np

import core


def on(xp, array):
    """A host array (or None) moved to namespace ``xp``."""
    return None if array is None else xp.asarray(np.asarray(array))


def weights_on(xp, weights: core.Weights) -> core.Weights:
    return core.Weights(**{name: on(xp, core.to_numpy(W)) for name, W in vars(weights).items()})


def host(array):
    return core.to_numpy(array)
