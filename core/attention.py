"""Multi-head self-attention as matrices, handing back every intermediate (the trace)."""

import math
from dataclasses import dataclass

import numpy as np
from array_api_compat import array_namespace

from core.backend import like
from core.checks import (
    check_finite,
    check_heads,
    check_matmul,
    check_no_overflow,
    check_shape,
    scores_cannot_overflow,
)
from core.softmax import softmax_rows
from core.weights import Weights

PER_HEAD_FIELDS = ("Q", "K", "V", "scores", "scaled", "masked", "weights", "head_outputs")
FIELDS = ("X", *PER_HEAD_FIELDS, "concat", "output")
SQUARE_FIELDS = frozenset({"scores", "scaled", "masked", "weights"})  # [..., h, n, n]
BLOCK_BYTES = 256 * 2**20  # n x n temporaries per block of heads stay under this


@dataclass(frozen=True, eq=False)
class AttentionTrace:
    """Every intermediate of one attention pass; a field is None when the caller did not keep it.

    Shapes for X [n, d_model] (a leading b axis when X had one); h = number of heads held.
    """

    X: object = None  # [n, d_model]
    Q: object = None  # [h, n, d_k]
    K: object = None  # [h, n, d_k]
    V: object = None  # [h, n, d_v]
    scores: object = None  # [h, n, n]  S = Q K^T
    scaled: object = None  # [h, n, n]  S / sqrt(d_k)
    masked: object = (
        None  # [h, n, n]  scaled, -inf where the mask forbids (scaled itself if no mask)
    )
    weights: object = None  # [h, n, n]  A = softmax(masked) along the key axis
    head_outputs: object = None  # [h, n, d_v]  O_h = A V
    concat: object = None  # [n, h*d_v]  heads side by side, head 0 first
    output: object = None  # [n, d_model]  concat W_O
    heads: tuple = ()  # which heads the per-head fields hold, in order


def split_heads(M, n_heads: int):
    """[..., n, h*d] -> [..., h, n, d]: head h takes columns h*d:(h+1)*d."""
    xp = array_namespace(M)
    *lead, n, width = M.shape
    M = xp.reshape(M, (*lead, n, n_heads, width // n_heads))  # [..., n, h, d]
    return xp.permute_dims(M, (*range(len(lead)), len(lead) + 1, len(lead), len(lead) + 2))


def merge_heads(M):
    """[..., h, n, d] -> [..., n, h*d]: the heads side by side, head 0 first (inverse of split)."""
    xp = array_namespace(M)
    *lead, h, n, d = M.shape
    M = xp.permute_dims(M, (*range(len(lead)), len(lead) + 1, len(lead), len(lead) + 2))
    return xp.reshape(M, (*lead, n, h * d))  # [..., n, h*d]


def validate(X, weights: Weights, n_heads: int, mask=None) -> tuple[int, int]:
    """InputError unless the shapes fit and the numbers are finite; returns (d_k, d_v)."""
    if X.ndim not in (2, 3):
        raise ValueError(f"X must be [n, d_model] or [b, n, d_model], got shape {tuple(X.shape)}")
    for name, W in (("W_Q", weights.W_Q), ("W_K", weights.W_K), ("W_V", weights.W_V)):
        check_matmul(X.shape, W.shape, "X", name)
    check_shape("W_K", weights.W_K, weights.W_Q.shape)
    d_k = check_heads(weights.W_Q.shape[1], n_heads, "W_Q")
    d_v = check_heads(weights.W_V.shape[1], n_heads, "W_V")
    check_matmul((*X.shape[:-1], weights.W_V.shape[1]), weights.W_O.shape, "concat", "W_O")
    for name, M in (("X", X), *vars(weights).items()):
        check_finite(name, M)
    n = X.shape[-2]
    if mask is not None and tuple(mask.shape[-2:]) != (n, n):
        check_shape("mask", mask, (*mask.shape[:-2], n, n))
    return d_k, d_v


def _head_range(start: int, stop: int) -> tuple:
    """Index of heads start:stop in an array shaped [..., h, n, d]."""
    return (..., slice(start, stop), slice(None), slice(None))


def _head_blocks(heads, n_rows: int, itemsize: int, max_heads: int):
    """Runs of consecutive heads whose n x n temporaries fit in BLOCK_BYTES (at least one head)."""
    per_head = n_rows * itemsize * 3  # S, the masked copy and exp(): what a head needs at once
    size = max(1, min(max_heads, BLOCK_BYTES // max(per_head, 1)))
    block = []
    for h in heads:
        if block and (h != block[-1] + 1 or len(block) == size):
            yield block[0], block[-1] + 1
            block = []
        block.append(h)
    if block:
        yield block[0], block[-1] + 1


def attention(X, weights: Weights, n_heads: int, mask=None, *, keep=FIELDS, heads=None):
    """Multi-head self-attention of X; returns an AttentionTrace holding the fields in ``keep``.

    ``heads`` limits the per-head fields to those heads (the output still uses every head when
    "output" or "concat" is kept). Keeping fewer n x n fields lets large n fit in little memory.

    Finite input that overflows on the way (Q, K, V, S, O or the output leaving the dtype's range)
    is refused with InputError "overflow", naming the step: the trace shows real numbers or none.
    """
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is checked step by step
        return _attention(X, weights, n_heads, mask, keep, heads)


def _attention(X, weights: Weights, n_heads: int, mask, keep, heads) -> AttentionTrace:
    weights, mask = weights.like(X), like(mask, X)  # computed where X lives
    xp = array_namespace(X, weights.W_Q)
    d_k, d_v = validate(X, weights, n_heads, mask)
    keep = frozenset(keep)
    unknown = keep - set(FIELDS)
    if unknown:
        raise ValueError(f"unknown trace fields {sorted(unknown)}; choose from {FIELDS}")
    asked = keep
    if mask is None and "masked" in keep:  # nothing to mask: the masked matrix is S/√d_k itself,
        keep = keep - {"masked"} | {"scaled"}  # one array serves both (no n x n copy)
    need_all_heads = bool(keep & {"concat", "output"})
    shown = tuple(range(n_heads)) if heads is None else tuple(sorted(set(heads)))
    if any(not 0 <= h < n_heads for h in shown):
        raise ValueError(f"heads must be in 0..{n_heads - 1}, got {list(shown)}")
    computed = tuple(range(n_heads)) if need_all_heads else shown

    Q = split_heads(X @ weights.W_Q, n_heads)  # [..., h, n, d_k]
    K = split_heads(X @ weights.W_K, n_heads)  # [..., h, n, d_k]
    V = split_heads(X @ weights.W_V, n_heads)  # [..., h, n, d_v]
    # finite input can still overflow: refuse it rather than show inf and NaN (see _attend_block)
    for step, M in (("Q = X W_Q", Q), ("K = X W_K", K), ("V = X W_V", V)):
        check_no_overflow(step, M)
    check_scores = not scores_cannot_overflow(Q, K)
    if mask is not None and mask.ndim >= 3:
        mask = xp.expand_dims(mask, axis=-3)  # [b, 1, n, n]: the same mask for every head
    # NumPy writes -inf into the forbidden cells in place (the inverted mask made once), when the
    # mask has no more axes than the scores [..., h, n, n]; else np.where broadcasts it
    in_place_mask = isinstance(mask, np.ndarray) and mask.ndim <= X.ndim + 1
    forbidden = np.logical_not(mask) if in_place_mask else None
    scale = 1.0 / math.sqrt(d_k)
    n_rows = math.prod(X.shape[:-2]) * X.shape[-2] ** 2
    itemsize = 4 if X.dtype == xp.float32 else 8
    max_heads = 1 if heads is not None else n_heads  # a chosen few heads: one at a time

    blocks = list(_head_blocks(computed, n_rows, itemsize, max_heads))
    trace, outputs, in_place = {}, [], {}
    if len(blocks) > 1 and isinstance(X, np.ndarray) and (mask is None or forbidden is not None):
        # NumPy can write each block in place (not with a mask that adds axes to the result)
        n, batch = X.shape[-2], X.shape[:-2]
        for name in SQUARE_FIELDS & keep:
            in_place[name] = trace[name] = np.empty((*batch, len(shown), n, n), X.dtype)
    for start, stop in blocks:
        part = _head_range(start, stop)
        out = None
        if start in shown and in_place:
            at = shown.index(start)
            out = {
                name: whole[_head_range(at, at + stop - start)] for name, whole in in_place.items()
            }
        block = _attend_block(
            Q[part], K[part], V[part], mask, scale, keep, xp, out, forbidden, check_scores
        )
        outputs.append(block["head_outputs"])
        if start not in shown:  # computed only for the output (blocks are one head then)
            continue
        for name, value in block.items():
            if name not in keep or (out is not None and name in out):
                continue
            if len(blocks) == 1:
                trace[name] = value
                continue
            if name not in trace:  # filled block by block: no concatenation doubling the memory
                shape = (*value.shape[:-3], len(shown), *value.shape[-2:])
                trace[name] = xp.empty(shape, dtype=value.dtype)
            at = shown.index(start)
            trace[name][_head_range(at, at + stop - start)] = value

    if need_all_heads:
        O = outputs[0] if len(outputs) == 1 else xp.concat(outputs, axis=-3)  # [..., h, n, d_v]
        concat = merge_heads(O)  # [..., n, h*d_v]
        trace["concat"] = concat if "concat" in keep else None
        if "output" in keep:
            trace["output"] = concat @ weights.W_O  # [..., n, d_model]
            check_no_overflow("output = concat W_O", trace["output"])
        else:
            trace["output"] = None
    trace["X"] = X if "X" in keep else None
    if "masked" in asked and "masked" not in keep:
        trace["masked"] = trace.get("scaled")  # (absent when no head was computed)
        if "scaled" not in asked:
            trace["scaled"] = None
    return AttentionTrace(**trace, heads=shown)


def _attend_block(
    Q, K, V, mask, scale, keep, xp, out=None, forbidden=None, check_scores=False
) -> dict:
    """Scaled dot-product attention for a block of heads, keeping the fields asked for.

    ``out`` (NumPy only) maps n x n fields to the arrays to write them into, so a block's
    results land where the trace keeps them instead of being copied there; ``forbidden`` (NumPy
    only) is the inverted mask. With ``check_scores`` the scores are checked for overflow before
    the softmax: an infinite score would make its row of A NaN (inf - inf), or all zero where
    keys were allowed.
    """
    out = out or {}
    Kt = xp.matrix_transpose(K)  # [..., hb, d_k, n]
    if "scores" in keep:
        S = np.matmul(Q, Kt, out=out["scores"]) if "scores" in out else Q @ Kt  # [..., hb, n, n]
        scaled = np.multiply(S, scale, out=out["scaled"]) if "scaled" in out else S * scale
    elif math.frexp(scale)[0] == 0.5:  # nobody keeps S, and 1/√d_k is a power of 2 (d_k = 4,
        # 16, 64, ...): scaling Q [..., hb, n, d_k] gives S/√d_k bit for bit, and no n x n pass
        Q_scaled = Q * scale
        S = np.matmul(Q_scaled, Kt, out=out["scaled"]) if "scaled" in out else Q_scaled @ Kt
        scaled = S
    else:  # nobody keeps S: scale it where it is
        S = np.matmul(Q, Kt, out=out["scaled"]) if "scaled" in out else Q @ Kt
        S *= scale
        scaled = S
    if check_scores:
        check_no_overflow("S = Q Kᵀ", scaled)
    if "masked" in out:  # (only with a mask: without one, masked is S/√d_k's own array)
        masked = out["masked"]
        np.copyto(masked, scaled)
        np.copyto(masked, -math.inf, where=forbidden)
    elif mask is None:
        masked = scaled
    elif forbidden is not None:  # NumPy: -inf written over the forbidden cells
        masked = scaled if "scaled" not in keep else np.array(scaled)  # in place unless kept
        np.copyto(masked, -math.inf, where=forbidden)
    else:
        masked = xp.where(mask, scaled, -math.inf)  # [..., hb, n, n]
    aliases_of_masked = {"masked"} | ({"scaled"} if masked is scaled else set())
    A = softmax_rows(  # [..., hb, n, n]
        masked, overwrite=not (aliases_of_masked & keep), out=out.get("weights")
    )
    O = A @ V  # [..., hb, n, n] @ [..., hb, n, d_v] -> [..., hb, n, d_v]
    check_no_overflow("O = A V", O)  # rows of A sum to 1, but rounding can push |V|'s max over
    block = {"Q": Q, "K": K, "V": V, "scores": S, "scaled": scaled, "masked": masked, "weights": A}
    block = {name: value for name, value in block.items() if name in keep}
    block["head_outputs"] = O
    return block
