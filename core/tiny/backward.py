"""The tiny decoder's backward pass, written out by hand: each step beside the forward step it
undoes, no autograd.

    dlogits = (softmax(logits) − onehot(next token)) / count    at the target positions, else 0
    dW_U = hᵀ dlogits;  dh = dlogits W_Uᵀ
    per layer, last first (dout = dh: the residual hands the gradient to both branches):
        dW_O = concatᵀ dout;  dconcat = dout W_Oᵀ;  dO = dconcat split into heads
        dA = dO Vᵀ;  dV = Aᵀ dO
        dS_masked = A ⊙ (dA − Σ_j dA ⊙ A)     the softmax's Jacobian, row by row
        dS_scaled = dS_masked                 the mask: A is 0 where masked, so is this
        dS = dS_scaled / √d_head              the scaling (none when it is switched off)
        dQ = dS K;  dK = dSᵀ Q
        dW_Q = hᵀ dQ, dW_K = hᵀ dK, dW_V = hᵀ dV (heads side by side, summed over the batch)
        dh_in = dh + dQ W_Qᵀ + dK W_Kᵀ + dV W_Vᵀ
    dE[v] = Σ of dh0 over the positions holding token v;  dP[t] = Σ over the batch of dh0[:, t]
"""

from dataclasses import dataclass, fields

import numpy as np

from core.heads import merge_heads, split_heads
from core.tiny.forward import Forward, LayerTrace, forward, project, qkv_weights, rows
from core.tiny.model import layer_key, n_layers_of


@dataclass(frozen=True, eq=False)
class LayerGrads:
    """One layer's gradients of the loss, named after what they are the gradient of."""

    dout: np.ndarray  # [b, n, d]  of the layer's output (the residual's gradient above it)
    dconcat: np.ndarray  # [b, n, d]
    dO: np.ndarray  # [b, heads, n, d_head]
    dA: np.ndarray  # [b, heads, n, n]
    dS_masked: np.ndarray  # [b, heads, n, n]  through the softmax; 0 above the diagonal
    dQ: np.ndarray  # [b, heads, n, d_head]
    dK: np.ndarray  # [b, heads, n, d_head]
    dV: np.ndarray  # [b, heads, n, d_head]
    dW_Q: np.ndarray  # [d, d]
    dW_K: np.ndarray  # [d, d]
    dW_V: np.ndarray  # [d, d]
    dW_O: np.ndarray  # [d, d]
    dh_in: np.ndarray  # [b, n, d]  of the residual stream coming into the layer
    factor: float  # 1 / √d_head with scaling, else 1

    @property
    def dS_scaled(self) -> np.ndarray:
        """[b, heads, n, n]  of S_scaled: dS_masked itself (the mask's entries have A = 0)."""
        return self.dS_masked

    @property
    def dS(self) -> np.ndarray:
        """[b, heads, n, n]  of the raw scores Q Kᵀ: dS_scaled / √d_head."""
        return self.dS_masked * self.factor


@dataclass(frozen=True, eq=False)
class BackwardTrace:
    """One sequence's backward pass opened up: its forward pass, its loss and every gradient, the
    batch axis dropped ([heads, n, n] rather than [1, heads, n, n])."""

    forward: Forward  # the sequence's forward pass (batch of one)
    loss: float
    dlogits: np.ndarray  # [n, vocab]
    layers: tuple  # LayerGrads per layer, first layer first, batch axis dropped
    grads: dict  # the same keys as params


def dlogits_of(run: Forward) -> np.ndarray:
    """∂loss/∂logits [b, n, vocab]: (p − onehot) / count at the target positions, 0 elsewhere."""
    d = np.zeros_like(run.probs)
    d[:, :-1] = run.probs[:, :-1]
    b, n = run.tokens.shape
    d[np.arange(b)[:, None], np.arange(n - 1)[None, :], run.tokens[:, 1:]] -= 1.0
    d[:, :-1] *= run.targets[..., None] / run.targets.sum()
    return d


def layer_backward(dh, trace: LayerTrace, params: dict, layer: int, scale: bool) -> LayerGrads:
    """Gradients of one attention layer, given dh = ∂loss/∂(its output residual) [b, n, d]."""
    n_heads, d = trace.Q.shape[1], dh.shape[-1]
    dout = dh  # h_out = h_in + out: the residual passes dh to out unchanged
    dW_O = rows(trace.concat).T @ rows(dout)  # [d, d]
    dconcat = project(dout, params[layer_key(layer, "W_O")].T)  # [b, n, d]
    dO = split_heads(dconcat, n_heads)  # [b, heads, n, d_head]
    dA = dO @ np.swapaxes(trace.V, -1, -2)  # [b, heads, n, n]
    A = trace.A
    dS_masked = dA - (dA * A).sum(axis=-1, keepdims=True)  # the softmax's Jacobian:
    dS_masked *= A  # A ⊙ (dA − Σ_j dA ⊙ A); 0 where masked, since A is (so dS_scaled = dS_masked)
    dQ = dS_masked @ trace.K  # [b, heads, n, d_head]; dS = dS_masked / √d_head (LayerGrads.dS),
    dQ *= trace.factor  # the 1 / √d_head applied here, to the smaller array
    dK = np.swapaxes(dS_masked, -1, -2) @ trace.Q  # [b, heads, n, d_head]
    dK *= trace.factor
    dV = np.swapaxes(A, -1, -2) @ dO  # [b, heads, n, d_head]
    dQKV = np.concatenate([merge_heads(dQ), merge_heads(dK), merge_heads(dV)], -1)  # [b, n, 3d]
    dW_QKV = rows(trace.h_in).T @ rows(dQKV)  # [d, 3d]: hᵀ dQ, hᵀ dK, hᵀ dV side by side
    dh_in = dh + project(dQKV, qkv_weights(params, layer).T)  # dh + dQ W_Qᵀ + dK W_Kᵀ + dV W_Vᵀ
    dW_Q, dW_K, dW_V = dW_QKV[:, :d], dW_QKV[:, d : 2 * d], dW_QKV[:, 2 * d :]
    return LayerGrads(
        dout, dconcat, dO, dA, dS_masked, dQ, dK, dV, dW_Q, dW_K, dW_V, dW_O, dh_in, trace.factor
    )


def backward(params: dict, run: Forward) -> tuple[dict, np.ndarray, list]:
    """(grads with params' keys, dlogits, LayerGrads per layer first-first) for a forward pass."""
    dlogits = dlogits_of(run)  # [b, n, vocab]
    grads = {"W_U": rows(run.h).T @ rows(dlogits)}  # [d, vocab]
    dh = project(dlogits, params["W_U"].T)  # [b, n, d]
    per_layer = []
    for layer in reversed(range(n_layers_of(params))):
        g = layer_backward(dh, run.layers[layer], params, layer, run.scale)
        for name in ("W_Q", "W_K", "W_V", "W_O"):
            grads[layer_key(layer, name)] = getattr(g, "d" + name)
        per_layer.insert(0, g)
        dh = g.dh_in
    vocab, n = params["E"].shape[0], run.tokens.shape[1]
    onehot = (run.tokens.reshape(-1, 1) == np.arange(vocab)).astype(dh.dtype)  # [b·n, vocab]
    grads["E"] = onehot.T @ rows(dh)  # [vocab, d]: each row sums its token's positions
    grads["P"] = np.zeros_like(params["P"])
    grads["P"][:n] = dh.sum(axis=0)  # [n, d]
    return {key: grads[key] for key in params}, dlogits, per_layer


def loss_and_grads(params: dict, tokens, n_heads: int, scale: bool = True, targets=None):
    """(mean cross-entropy over the target positions as a float, grads with params' keys).

    tokens [b, n] ints; targets [b, n − 1] bool (position t predicts token t + 1), all if None.
    """
    run = forward(params, tokens, n_heads, scale, targets)
    grads, _, _ = backward(params, run)
    return run.loss, grads


def _drop_batch(g: LayerGrads) -> LayerGrads:
    """The same gradients with the batch axis of the per-position ones dropped."""
    values = {f.name: getattr(g, f.name) for f in fields(g)}
    per_position = {k for k, v in values.items() if not k.startswith("dW") and k != "factor"}
    return LayerGrads(**{k: v[0] if k in per_position else v for k, v in values.items()})


def backward_trace(
    params: dict, tokens, n_heads: int, scale: bool = True, targets=None, example: int = 0
) -> BackwardTrace:
    """One sequence's backward pass (row ``example`` of tokens [b, n], its loss alone)."""
    tokens = np.asarray(tokens)[example : example + 1]
    targets = None if targets is None else np.asarray(targets, bool)[example : example + 1]
    run = forward(params, tokens, n_heads, scale, targets)
    grads, dlogits, per_layer = backward(params, run)
    layers = tuple(_drop_batch(g) for g in per_layer)
    return BackwardTrace(run, run.loss, dlogits[0], layers, grads)
