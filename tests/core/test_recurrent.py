"""core/variants/recurrent.py: the RNN chain really depends on the past."""

import numpy as np

import core


def test_the_rnn_chain_really_depends_on_the_past():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 4))
    W_h, W_x = rng.normal(size=(4, 4)) * 0.5, rng.normal(size=(4, 4))
    H = core.rnn_chain(X, W_h, W_x)
    h = np.zeros(4)
    for t in range(6):  # the recurrence written out independently
        h = np.tanh(h @ W_h + X[t] @ W_x)
        np.testing.assert_allclose(H[t], h)
    changed = X.copy()
    changed[0] += 1.0
    assert np.abs(core.rnn_chain(changed, W_h, W_x)[5] - H[5]).max() > 1e-6
