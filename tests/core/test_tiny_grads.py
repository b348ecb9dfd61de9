"""core.tiny's hand-written backward pass against torch autograd and against finite differences,
its forward pass against the walkthrough's attention, Adam against torch.optim.Adam."""

import math

import numpy as np
import pytest
import torch

from core import tiny
from core.errors import InputError
from core.masks import causal_mask
from core.reference import attention
from core.tiny.model import layer_key
from core.weights import Weights
from tests.support.tiny_torch import torch_forward

# vocab, n_ctx, d_model, n_heads, n_layers, b, n, scale, with a targets mask
SHAPES = [
    (5, 6, 4, 1, 1, 2, 6, True, False),
    (7, 9, 8, 1, 2, 3, 7, False, True),
    (11, 12, 12, 3, 1, 4, 12, True, True),
    (9, 10, 16, 4, 2, 5, 10, True, False),
    (13, 16, 24, 2, 3, 3, 9, False, False),
    (17, 25, 64, 4, 2, 8, 25, True, True),
]


def problem(vocab, n_ctx, d, heads, layers, b, n, masked, seed=0):
    params = tiny.init(seed, vocab, n_ctx, d, heads, layers)
    rng = np.random.default_rng(seed + 1)
    tokens = rng.integers(0, vocab, (b, n))
    targets = None
    if masked:
        targets = rng.random((b, n - 1)) < 0.5
        targets[0, -1] = True
    return params, tokens, targets


def relative_error(mine, theirs) -> float:
    return float(np.abs(mine - theirs).max() / max(np.abs(theirs).max(), 1e-300))


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "-".join(map(str, s)))
def test_every_gradient_equals_torch_autograd(shape):
    *sizes, scale, masked = shape
    params, tokens, targets = problem(*sizes, masked)
    heads = sizes[3]
    loss, grads = tiny.loss_and_grads(params, tokens, heads, scale=scale, targets=targets)
    torch_loss, P, _ = torch_forward(params, tokens, heads, scale, targets)
    assert isinstance(loss, float)
    assert loss == pytest.approx(torch_loss, rel=1e-12)
    assert list(grads) == list(params)
    for key, g in grads.items():
        assert g.shape == params[key].shape and g.dtype == np.float64
        assert relative_error(g, P[key].grad.numpy()) <= 1e-8, key


def test_positions_outside_the_targets_get_no_gradient():
    params, tokens, _ = problem(7, 8, 8, 2, 2, 3, 8, False)
    targets = np.zeros((3, 7), bool)
    targets[:, :3] = True  # only the first three predictions count: tokens 4.. never matter
    _, grads = tiny.loss_and_grads(params, tokens, 2, targets=targets)
    changed = tokens.copy()
    changed[:, 5:] = (changed[:, 5:] + 1) % 7
    _, again = tiny.loss_and_grads(params, changed, 2, targets=targets)
    for key in grads:
        np.testing.assert_array_equal(grads[key], again[key])
    assert not grads["P"][4:].any()  # positions after the last counted prediction


def test_gradients_match_central_differences():
    params, tokens, targets = problem(6, 5, 6, 2, 2, 2, 5, True, seed=3)
    _, grads = tiny.loss_and_grads(params, tokens, 2, targets=targets)
    rng = np.random.default_rng(0)
    eps = 1e-6
    for key, p in params.items():
        for flat in rng.choice(p.size, size=min(4, p.size), replace=False):
            index = np.unravel_index(flat, p.shape)
            if key == "E" and index[0] not in tokens:
                continue
            up = {k: v.copy() for k, v in params.items()}
            down = {k: v.copy() for k, v in params.items()}
            up[key][index] += eps
            down[key][index] -= eps
            plus, _ = tiny.loss_and_grads(up, tokens, 2, targets=targets)
            minus, _ = tiny.loss_and_grads(down, tokens, 2, targets=targets)
            numeric = (plus - minus) / (2 * eps)
            assert grads[key][index] == pytest.approx(numeric, rel=1e-5, abs=1e-8), (key, index)


@pytest.mark.parametrize("scale", [True, False])
def test_a_layer_is_the_walkthroughs_attention(scale):
    params, tokens, _ = problem(9, 10, 12, 3, 2, 4, 10, False)
    run = tiny.forward(params, tokens, 3, scale=scale)
    for i, layer in enumerate(run.layers):
        W = Weights(*(params[layer_key(i, w)] for w in ("W_Q", "W_K", "W_V", "W_O")))
        # the walkthrough always divides by √d_k: without scaling, the same scores come from a W_Q
        # multiplied by √d_k
        if not scale:
            W = Weights(W.W_Q * math.sqrt(4), W.W_K, W.W_V, W.W_O)
        ref = attention(layer.h_in[2], W, 3, mask=causal_mask(10))
        np.testing.assert_allclose(layer.A[2], ref.A, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(layer.out[2], ref.output, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(layer.O[2], ref.O, rtol=1e-12, atol=1e-13)
        if scale:
            np.testing.assert_allclose(layer.S_scaled[2], ref.S_scaled, rtol=1e-12)
            np.testing.assert_array_equal(np.isinf(layer.S_masked[2]), np.isinf(ref.S_masked))
    first = run.layers[0]
    np.testing.assert_array_equal(first.h_in, params["E"][tokens] + params["P"][:10])
    np.testing.assert_allclose(run.layers[1].h_in, first.h_in + first.out, rtol=0, atol=0)


def test_one_examples_backward_is_torchs():
    params, tokens, targets = problem(11, 12, 12, 3, 2, 4, 12, True)
    trace = tiny.backward_trace(params, tokens, 3, targets=targets, example=2)
    loss, P, kept = torch_forward(params, tokens[2:3], 3, True, targets[2:3])
    assert trace.loss == pytest.approx(loss, rel=1e-12)
    for key, g in trace.grads.items():
        assert relative_error(g, P[key].grad.numpy()) <= 1e-8, key
    for layer, theirs in zip(trace.layers, kept, strict=True):
        pairs = {"dA": "A", "dS": "S", "dQ": "Q", "dK": "K", "dV": "V", "dO": "O"}
        for mine, name in pairs.items():
            expected = theirs[name].grad.numpy()[0]
            assert getattr(layer, mine).shape == expected.shape, mine
            assert relative_error(getattr(layer, mine), expected) <= 1e-8, mine
        assert layer.dW_Q.shape == (12, 12)
    np.testing.assert_array_equal(
        trace.layers[0].dS_masked[:, np.triu_indices(12, 1)[0], np.triu_indices(12, 1)[1]], 0.0
    )
    assert trace.dlogits.shape == (12, 11)


def test_bad_sizes_are_input_errors():
    with pytest.raises(InputError) as caught:
        tiny.init(0, 8, 8, 10, 3, 2)
    assert caught.value.code == "heads_do_not_divide"
    for bad in ({"vocab": 0}, {"n_layers": 0}, {"d_model": -4}, {"n_ctx": 2.5}):
        sizes = {"vocab": 8, "n_ctx": 8, "d_model": 8, "n_heads": 2, "n_layers": 1, **bad}
        with pytest.raises(InputError) as caught:
            tiny.init(0, **sizes)
        assert caught.value.code == "non_positive"
    params = tiny.init(0, 8, 8, 8, 2, 1)
    with pytest.raises(InputError):
        tiny.loss_and_grads(params, np.zeros((2, 8), int), 3)  # 3 heads do not divide 8
    with pytest.raises(InputError):
        tiny.loss_and_grads(params, np.zeros((2, 9), int), 2)  # longer than n_ctx
    with pytest.raises(InputError):
        tiny.loss_and_grads(params, np.full((2, 4), 8), 2)  # id outside the vocabulary


def test_init_is_seeded_and_shaped():
    a = tiny.init(4, 9, 7, 12, 3, 2)
    b = tiny.init(4, 9, 7, 12, 3, 2)
    c = tiny.init(5, 9, 7, 12, 3, 2)
    assert list(a) == [
        "E",
        "P",
        *(layer_key(i, w) for i in range(2) for w in ("W_Q", "W_K", "W_V", "W_O")),
        "W_U",
    ]
    assert a["E"].shape == (9, 12) and a["P"].shape == (7, 12) and a["W_U"].shape == (12, 9)
    assert all(v.dtype == np.float64 for v in a.values())
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert not np.array_equal(a["W_U"], c["W_U"])


def test_adam_is_torchs():
    params, tokens, _ = problem(7, 8, 8, 2, 2, 3, 8, False)
    P = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in params.values()]
    opt = torch.optim.Adam(P, lr=3e-3, betas=(0.8, 0.99), eps=1e-7)
    state = tiny.adam_init(params)
    rng = np.random.default_rng(0)
    for _ in range(5):
        grads = {k: rng.normal(size=v.shape) for k, v in params.items()}
        params, state = tiny.adam_step(params, grads, state, lr=3e-3, betas=(0.8, 0.99), eps=1e-7)
        for p, g in zip(P, grads.values(), strict=True):
            p.grad = torch.from_numpy(g)
        opt.step()
    assert state.t == 5
    for mine, theirs in zip(params.values(), P, strict=True):
        np.testing.assert_allclose(mine, theirs.detach().numpy(), rtol=0, atol=1e-12)
