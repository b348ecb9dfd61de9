"""The fast path of multi-head attention: blocks of heads, in-place buffers, fewer n x n arrays.

The same numbers as core/reference.py (the tests hold them equal), computed so that long sentences
fit: only the fields asked for are kept, the heads go in blocks whose n x n temporaries stay under
BLOCK_BYTES, and NumPy writes each block straight into the trace. core.attention uses it where size
calls for it. On NumPy, once the scores have PARALLEL_FROM cells, every product and pass of a call
runs on the pool of core/threads.py with BLAS on one thread, the projections included: BLAS's own
threads would be left spinning through the passes after them.
"""

import math

import numpy as np
from array_api_compat import array_namespace

from core import reuse, threads
from core.backend import like
from core.checks import check_no_overflow, scores_cannot_overflow, validate
from core.heads import merge_heads, split_heads
from core.softmax import softmax_block, softmax_rows
from core.trace import FIELDS, SQUARE_FIELDS, AttentionTrace
from core.weights import Weights

BLOCK_BYTES = 256 * 2**20  # n x n temporaries per block of heads stay under this


def _head_range(start: int, stop: int) -> tuple:
    """Index of heads start:stop in an array shaped [..., h, n, d]."""
    return (..., slice(start, stop), slice(None), slice(None))


def _head_blocks(heads, per_head: int, max_heads: int):
    """Runs of consecutive heads whose n x n temporaries (``per_head`` bytes a head) fit in
    BLOCK_BYTES (at least one head)."""
    size = max(1, min(max_heads, BLOCK_BYTES // max(per_head, 1)))
    block = []
    for h in heads:
        if block and (h != block[-1] + 1 or len(block) == size):
            yield block[0], block[-1] + 1
            block = []
        block.append(h)
    if block:
        yield block[0], block[-1] + 1


def attention_blocked(X, weights: Weights, n_heads: int, mask=None, *, keep=FIELDS, heads=None):
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
    if mask is None and "S_masked" in keep:  # nothing to mask: S_masked is S_scaled itself,
        keep = keep - {"S_masked"} | {"S_scaled"}  # one array serves both (no n x n copy)
    need_all_heads = bool(keep & {"concat", "output"})
    shown = tuple(range(n_heads)) if heads is None else tuple(sorted(set(heads)))
    if any(not 0 <= h < n_heads for h in shown):
        raise ValueError(f"heads must be in 0..{n_heads - 1}, got {list(shown)}")
    computed = tuple(range(n_heads)) if need_all_heads else shown

    n_rows = math.prod(X.shape[:-2]) * X.shape[-2] ** 2  # a head's score cells
    # NumPy, large (every head's score cells, so the same products whichever fields or heads are
    # kept): the projections on every core, BLAS on one thread each (threads.matmul_rows)
    large = isinstance(X, np.ndarray) and n_heads * n_rows >= threads.PARALLEL_FROM
    W_QKV = (weights.W_Q, weights.W_K, weights.W_V)
    projected = threads.matmul_rows(X, *W_QKV) if large else [X @ W for W in W_QKV]
    Q, K, V = (split_heads(M, n_heads) for M in projected)  # [..., h, n, d_k or d_v]
    # finite input can still overflow: refuse it rather than show inf and NaN (see _attend_block);
    # checked on the products as made, before the heads' strided views ([..., n, h*d])
    for step, M in zip(("Q = X W_Q", "K = X W_K", "V = X W_V"), projected, strict=True):
        check_no_overflow(step, M)
    check_scores = not scores_cannot_overflow(*projected[:2], d_k=d_k)
    if mask is not None and mask.ndim >= 3:
        mask = xp.expand_dims(mask, axis=-3)  # [b, 1, n, n]: the same mask for every head
    # NumPy writes -inf into the forbidden cells in place (the inverted mask made once), when the
    # mask has no more axes than the scores [..., h, n, n]; else np.where broadcasts it
    in_place_mask = isinstance(mask, np.ndarray) and mask.ndim <= X.ndim + 1
    forbidden = np.logical_not(mask) if in_place_mask else None
    itemsize = 4 if X.dtype == xp.float32 else 8
    max_heads = 1 if heads is not None else n_heads  # a chosen few heads: one at a time

    # a head's n x n temporaries: S, the masked copy and exp(); on every core, none but the one
    # array a block works in when it keeps no n x n field (the kept ones are the trace's own)
    per_head = n_rows * itemsize * (3 if not large else 0 if keep & SQUARE_FIELDS else 1)
    blocks = list(_head_blocks(computed, per_head, max_heads))
    trace, outputs, in_place = {}, [], {}
    if len(blocks) > 1 and isinstance(X, np.ndarray) and (mask is None or forbidden is not None):
        # NumPy can write each block in place (not with a mask that adds axes to the result)
        n, batch = X.shape[-2], X.shape[:-2]
        for name in SQUARE_FIELDS & keep:
            in_place[name] = trace[name] = reuse.empty((*batch, len(shown), n, n), X.dtype)
    for start, stop in blocks:
        part = _head_range(start, stop)
        out = None
        if start in shown and in_place:
            at = shown.index(start)
            out = {
                name: whole[_head_range(at, at + stop - start)] for name, whole in in_place.items()
            }
        block = _attend_block(
            Q[part], K[part], V[part], mask, keep, xp, out, forbidden, check_scores
        )
        outputs.append(block["O"])
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
            W_O = weights.W_O
            trace["output"] = threads.matmul_rows(concat, W_O)[0] if large else concat @ W_O
            check_no_overflow("output = concat W_O", trace["output"])
        else:
            trace["output"] = None
    trace["X"] = X if "X" in keep else None
    if "S_masked" in asked and "S_masked" not in keep:
        trace["S_masked"] = trace.get("S_scaled")  # (absent when no head was computed)
        if "S_scaled" not in asked:
            trace["S_scaled"] = None
    return AttentionTrace(**trace, heads=shown)


def _attend_block(Q, K, V, mask, keep, xp, out=None, forbidden=None, check_scores=False) -> dict:
    """Scaled dot-product attention for a block of heads, keeping the fields asked for.

    ``out`` (NumPy only) maps n x n fields to the arrays to write them into, so a block's
    results land where the trace keeps them instead of being copied there; ``forbidden`` (NumPy
    only) is the inverted mask. With ``check_scores`` the scores are checked for overflow before
    the softmax: an infinite score would make its row of A NaN (inf - inf), or all zero where
    keys were allowed.
    """
    out = out or {}
    Kt = xp.matrix_transpose(K)  # [..., hb, d_k, n]
    root = math.sqrt(Q.shape[-1])
    n_cells = math.prod(Q.shape[:-1]) * K.shape[-2]
    if isinstance(Q, np.ndarray) and n_cells >= threads.PARALLEL_FROM:
        return _attend_block_on_every_core(Q, K, V, keep, out, forbidden, check_scores, mask)
    if "S" in keep:
        S = np.matmul(Q, Kt, out=out["S"]) if "S" in out else Q @ Kt  # [..., hb, n, n]
        S_scaled = np.divide(S, root, out=out["S_scaled"]) if "S_scaled" in out else S / root
    elif math.frexp(root)[0] == 0.5:  # nobody keeps S, and √d_k is a power of 2 (d_k = 4, 16,
        # 64, ...): dividing Q [..., hb, n, d_k] gives S/√d_k bit for bit, and no n x n pass
        Q_scaled = Q / root
        S = np.matmul(Q_scaled, Kt, out=out["S_scaled"]) if "S_scaled" in out else Q_scaled @ Kt
        S_scaled = S
    else:  # nobody keeps S: scale it where it is
        S = np.matmul(Q, Kt, out=out["S_scaled"]) if "S_scaled" in out else Q @ Kt
        S /= root
        S_scaled = S
    if check_scores:
        check_no_overflow("S = Q Kᵀ", S_scaled)
    if "S_masked" in out:  # (only with a mask: without one, S_masked is S_scaled's own array)
        S_masked = out["S_masked"]
        np.copyto(S_masked, S_scaled)
        np.copyto(S_masked, -math.inf, where=forbidden)
    elif mask is None:
        S_masked = S_scaled
    elif forbidden is not None:  # NumPy: -inf written over the forbidden cells
        # in place, unless S_scaled is kept
        S_masked = S_scaled if "S_scaled" not in keep else np.array(S_scaled)
        np.copyto(S_masked, -math.inf, where=forbidden)
    else:
        S_masked = xp.where(mask, S_scaled, -math.inf)  # [..., hb, n, n]
    aliases = {"S_masked"} | ({"S_scaled"} if S_masked is S_scaled else set())
    A = softmax_rows(S_masked, overwrite=not (aliases & keep), out=out.get("A"))  # [..., hb, n, n]
    O = A @ V  # [..., hb, n, n] @ [..., hb, n, d_v] -> [..., hb, n, d_v]
    check_no_overflow("O = A V", O)  # rows of A sum to 1, but rounding can push |V|'s max over
    block = {"Q": Q, "K": K, "V": V, "S": S, "S_scaled": S_scaled, "S_masked": S_masked, "A": A}
    block = {name: value for name, value in block.items() if name in keep}
    block["O"] = O
    return block


def _attend_block_on_every_core(Q, K, V, keep, out, forbidden, check_scores, mask) -> dict:
    """NumPy, large blocks: the passes above, one block of rows at a time, on every core
    (core/threads.py), so that each n x n field is written once and never read back.

    A block's scores Q_rows Kᵀ, then ÷√d_k, the mask and the softmax one cache-sized part of its
    rows at a time, then A_rows V, follow one another while the block is still in the cache (the
    products take more rows than the element-wise passes: BLAS runs faster on them). Each field
    kept is written straight where the trace keeps it; a field nobody keeps is written into the
    next kept one's array, which then works in place, so with only A kept, A's array is the one
    n x n array made. BLAS runs on one thread per block (the pool's threads are the cores). The
    element-wise arithmetic is the passes' own, bit for bit; the two products are BLAS's on blocks
    of rows, and BLAS picks its kernel by a matrix's shape, so their last bit may round otherwise
    than on the whole matrix (tests/core/test_attention.py holds them to float rounding).
    """
    root = math.sqrt(Q.shape[-1])
    shape = (*Q.shape[:-1], K.shape[-2])  # [..., hb, n, n]
    stages = ("S", "S_scaled", "S_masked", "A") if mask is not None else ("S", "S_scaled", "A")
    buffer, downstream = {}, None
    for name in reversed(stages):  # a field's own array, else the next kept field's
        if name in out:
            buffer[name] = out[name]
        elif name in keep:
            buffer[name] = reuse.empty(shape, Q.dtype)
        else:
            buffer[name] = downstream
        downstream = buffer[name]
    if buffer["A"] is None:  # nothing kept from some stage on: one array for that tail
        tail = reuse.empty(shape, Q.dtype)
        buffer = {name: tail if array is None else array for name, array in buffer.items()}
    prescaled = "S" not in keep and math.frexp(root)[0] == 0.5  # as above: Q ÷ √d_k, exact
    Q_in = Q / root if prescaled else Q
    Kt = np.swapaxes(K, -1, -2)  # [..., hb, d_k, n]
    S, S_scaled, A = buffer["S"], buffer["S_scaled"], buffer["A"]
    S_masked = buffer.get("S_masked", S_scaled)
    copy_to_mask = S_masked is not S_scaled
    O = np.empty((*Q.shape[:-1], V.shape[-1]), Q.dtype)  # [..., hb, n, d_v]
    fb = None if mask is None else np.broadcast_to(forbidden, shape)
    n = shape[-1]
    items = [
        (index, rows)
        for index in np.ndindex(shape[:-2])
        for rows in threads.product_blocks(shape[-2], n, Q.itemsize)
    ]

    # ÷ √d_k: with √d_k a power of 2, × 1/√d_k rounds the same exact quotient, and costs less
    power_of_2 = math.frexp(root)[0] == 0.5
    scale, factor = (np.multiply, 1 / root) if power_of_2 else (np.divide, root)

    def rows_of(item) -> None:
        index, rows = item
        np.matmul(Q_in[index][rows], Kt[index], out=S[index][rows])
        for part in threads.within(rows, n, Q.itemsize):  # each part while it is in cache
            z = S_scaled[index][part]
            if not prescaled:
                scale(S[index][part], factor, out=z)
            if check_scores:
                check_no_overflow("S = Q Kᵀ", z)
            if fb is not None:
                masked = S_masked[index][part]
                if copy_to_mask:
                    np.copyto(masked, z)
                np.copyto(masked, -math.inf, where=fb[index][part])
                z = masked
            softmax_block(z, A[index][part])
        np.matmul(A[index][rows], V[index], out=O[index][rows])

    with threads.blas_on_one_thread():
        threads.each(rows_of, items, math.prod(shape))
    check_no_overflow("O = A V", O)
    block = {"Q": Q, "K": K, "V": V, "S": S, "S_scaled": S_scaled}
    block |= {"S_masked": S_masked, "A": A}
    block = {name: value for name, value in block.items() if name in keep}
    block["O"] = O
    return block
