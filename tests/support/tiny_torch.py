"""core.tiny's decoder written again with torch ops, for its gradients by autograd: the reference
that the hand-written backward pass (core/tiny/backward.py) and the train page's opened-up backward
pass are checked against."""

import math

import numpy as np
import torch

from core.tiny.model import layer_key


def torch_forward(params, tokens, n_heads, scale=True, targets=None):
    """The same decoder written with torch ops; (loss, leaf tensors, per-layer tensors), after
    ``loss.backward()``: every leaf's and kept tensor's ``.grad`` is filled."""
    P = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True) for k, v in params.items()}
    x = torch.from_numpy(np.asarray(tokens, np.int64))
    b, n = x.shape
    h = P["E"][x] + P["P"][:n]
    d = h.shape[-1]
    causal = torch.tril(torch.ones(n, n, dtype=torch.bool))
    kept = []
    for i in range(sum(1 for k in P if k.endswith(".W_Q"))):
        q, k, v = (
            (h @ P[layer_key(i, w)]).view(b, n, n_heads, -1).transpose(1, 2)
            for w in ("W_Q", "W_K", "W_V")
        )
        s = q @ k.transpose(-1, -2)
        scaled = s / math.sqrt(d // n_heads) if scale else s
        a = torch.softmax(scaled.masked_fill(~causal, -math.inf), -1)
        o = a @ v
        for t in (q, k, v, s, a, o):
            t.retain_grad()
        kept.append({"Q": q, "K": k, "V": v, "S": s, "A": a, "O": o})
        h = h + o.transpose(1, 2).reshape(b, n, d) @ P[layer_key(i, "W_O")]
    logits = h @ P["W_U"]
    nll = torch.nn.functional.cross_entropy(
        logits[:, :-1].reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1), reduction="none"
    ).view(b, n - 1)
    mask = torch.ones(b, n - 1, dtype=torch.bool) if targets is None else torch.from_numpy(targets)
    loss = nll[mask].mean()
    loss.backward()
    return loss.item(), P, kept
