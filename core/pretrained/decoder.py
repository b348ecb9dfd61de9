"""One trained decoder in NumPy, configured by its model's facts (as TransformerLens configures one
model by flags): how many K/V heads the query heads share, QK-norm and the norms after each
sublayer, the local layers' window and RoPE's bases, GeGLU or SwiGLU, the embedding's scale and a
tied or separate head. Each model is a reader that maps its GGUF onto it: Gemma 3 270M
(core/pretrained/gemma.py: one K/V head for four query heads, multi-query) and SmolLM2-135M
(core/pretrained/llama.py: three K/V heads for nine, grouped-query). One small function per piece
of the layer, and decoding with a K/V cache that keeps K and V once per K/V head.

How this layer differs from the walkthrough's textbook one, each in its own function below:
RMSNorm in place of LayerNorm; K/V heads shared by groups of query heads; RMSNorm on each q and k
(QK-norm, Gemma); RoPE rotating q and k; a causal mask, with a window on the local layers (Gemma:
five local, then one global); the scale 1/√head_dim; a gated feed-forward (GeGLU or SwiGLU); the
embedding × √d_model in (Gemma), and the embedding matrix as the LM head out when it is tied.

The arithmetic goes through the array API (``array_namespace``), so the same code runs where the
weights are: NumPy, or CuPy on a GPU (``model.to(xp)``), with the K/V cache there too. A trace's
logits, A and residuals come back to the host as NumPy; the cache stays where the weights are.
The positions, RoPE's angles and the window's mask are a few small NumPy arrays made on the host.

A long prompt on NumPy (bench/two_decoders.py: 512 tokens at once) goes on every core, each
product a block at a time with BLAS on one thread per block (core/threads.py), the same numbers
to float32's rounding: the products with a weight in blocks of its rows (``times``), the
feed-forward a block of the stream's rows at a time with its gate in cache (``by_rows``), and
attention a block of query rows at a time over the keys those rows may read (``attend``), so
that most of the causal [n, t] scores' forbidden half is never computed. A step's one row, a
short prompt and a GPU take each piece whole.
"""

import math
from dataclasses import dataclass, field, fields, replace
from functools import lru_cache

import numpy as np
from array_api_compat import array_namespace

from core import threads
from core.backend import to_numpy
from core.heads import merge_heads, split_heads
from core.softmax import softmax_rows


@dataclass(frozen=True)
class DecoderConfig:
    d_model: int  # Gemma 3 270M: 640; SmolLM2-135M: 576
    n_layers: int  # 18; 30
    n_heads: int  # query heads: 4; 9
    n_kv_heads: int  # K/V heads, each read by n_heads / n_kv_heads query heads: 1; 3
    head_dim: int  # 256; 64
    d_ff: int  # 2048; 1536
    eps: float
    window: int | None  # the local layers' window (Gemma: 512); None: every layer global
    rope_base: float  # RoPE's base on the global layers (Gemma: 1 000 000; SmolLM2: 100 000)
    context: int  # 32 768; 8 192
    global_every: int = 1  # every this many layers one is global (Gemma: 6); 1: all
    local_rope_base: float | None = None  # RoPE's base on the local layers (Gemma: 10 000)
    rope_pairs: str = "halves"  # the pairs RoPE turns: (x_i, x_{i+d/2}), or "neighbours"
    # (x_2i, x_2i+1), the layout llama.cpp writes a llama model's q and k weights in
    qk_norm: bool = False  # RMSNorm on each q and k (Gemma)
    post_norms: bool = False  # RMSNorm after each sublayer too, before the stream (Gemma)
    activation: str = "silu"  # the feed-forward's gate: "gelu_tanh" (GeGLU) or "silu" (SwiGLU)
    embed_scale: bool = False  # the embedding × √d_model on the way in (Gemma)

    def is_local(self, layer: int) -> bool:
        return self.window is not None and (layer + 1) % self.global_every != 0

    def rope_base_of(self, layer: int) -> float:
        return self.local_rope_base if self.is_local(layer) else self.rope_base

    @property
    def group(self) -> int:
        """Query heads per K/V head: 1 multi-head, n_heads multi-query, between: grouped."""
        return self.n_heads // self.n_kv_heads


@dataclass(frozen=True)
class Layer:
    attn_norm: np.ndarray  # [d_model] (Gemma's stored as 1 + w)
    W_Q: np.ndarray  # [n_heads · head_dim, d_model]  (rows: outputs, as stored)
    W_K: np.ndarray  # [n_kv · head_dim, d_model]
    W_V: np.ndarray  # [n_kv · head_dim, d_model]
    W_O: np.ndarray  # [d_model, n_heads · head_dim]
    ffn_norm: np.ndarray  # [d_model]
    W_gate: np.ndarray  # [d_ff, d_model]
    W_up: np.ndarray  # [d_ff, d_model]
    W_down: np.ndarray  # [d_model, d_ff]
    q_norm: np.ndarray | None = None  # [head_dim], with QK-norm
    k_norm: np.ndarray | None = None  # [head_dim]
    post_attn_norm: np.ndarray | None = None  # [d_model], with the norms after each sublayer
    post_ffn_norm: np.ndarray | None = None  # [d_model]
    b_Q: np.ndarray | None = None  # [n_heads · head_dim], the biases where the model has them
    b_K: np.ndarray | None = None  # [n_kv · head_dim]  (Qwen2-style llama models: q, k, v)
    b_V: np.ndarray | None = None  # [n_kv · head_dim]
    b_O: np.ndarray | None = None  # [d_model]


@dataclass
class KVCache:
    """Each layer's K and V for the positions seen so far: [n_kv, t, head_dim] each, once per K/V
    head (the query heads of its group read the same one)."""

    K: list = field(default_factory=list)
    V: list = field(default_factory=list)

    @property
    def length(self) -> int:
        return 0 if not self.K else self.K[0].shape[1]

    @property
    def nbytes(self) -> int:
        return 4 * sum(k.size + v.size for k, v in zip(self.K, self.V))  # float32


@dataclass(frozen=True)
class DecoderTrace:
    ids: tuple  # the new positions' token ids
    positions: np.ndarray  # [n] their positions in the whole sequence
    logits: np.ndarray  # [n, vocab] the next token's scores at each new position
    A: list  # per layer [n_heads, n, t]: each new query head's weights over every key so far
    # (forward's A_rows: the last A_rows rows only)
    cache: KVCache  # K and V of every position so far (the input's cache, grown)
    # with residuals=True: the residual stream [n, d_model] as the embedding (Gemma: × √d_model) put
    # it in, then after each layer (n_layers + 1 arrays; the last one before the final norm) ...
    H: list | None = None
    # ... and what each layer added to it: (its attention's part, its feed-forward's part), each
    # [n, d_model] (after its post-norm, Gemma), so that H[i + 1] = H[i] + attention + feed-forward
    added: list | None = None


def rms_norm(x, weight, eps: float):
    """x / √(mean(x²) + ε) · weight, over the last axis (the weight stored as 1 + w)."""
    xp = array_namespace(x)
    y = x / xp.sqrt(xp.mean(x * x, axis=-1, keepdims=True) + eps)
    y *= weight  # in place: one [n, d] array fewer (see gelu_tanh)
    return y


def rope(x, positions, base: float, pairs: str = "halves"):
    """Rotate each pair of x [.., n, d] by the angle position / base^(2i/d): the pairs
    (x_i, x_{i + d/2}) ("halves"), or (x_2i, x_2i+1) ("neighbours", llama.cpp's layout of a llama
    model's weights); ``positions`` [n] are NumPy's (the angles are made on the host, in
    float64)."""
    xp = array_namespace(x)
    d = x.shape[-1]
    cos, sin = _rotation_in(xp, positions.astype(np.int64).tobytes(), base, d, pairs)
    # x · cos + rotated(x) · sin, where rotated(x) takes each pair (a, b) to (−b, a), written
    # into x · cos a half at a time (bit for bit the same sums): no [.., n, d] array of
    # rotated(x), nor of its product, made on the way
    out = x * cos
    if pairs == "neighbours":  # the pairs (x_2i, x_2i+1)
        first, second = (slice(0, None, 2), slice(1, None, 2))
    else:  # the pairs (x_i, x_{i + d/2}): transformers' rotate_half
        first, second = slice(0, d // 2), slice(d // 2, d)
    out[..., first] -= x[..., second] * sin[..., first]
    out[..., second] += x[..., first] * sin[..., second]
    return out


@lru_cache(maxsize=4)
def _rotation(positions: bytes, base: float, d: int, pairs: str) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin [n, d] (float32) of the angles position / base^(2i/d), each angle on both
    members of its pair (the halves side by side, or neighbours twice): made once per pass and
    base, not once per layer (q and k of every layer share two of them)."""
    inverse = base ** (-np.arange(0, d, 2, dtype=np.float64) / d)  # [d/2]
    angle = np.frombuffer(positions, dtype=np.int64)[:, None].astype(np.float64) * inverse
    if pairs == "neighbours":
        cos, sin = (np.repeat(f(angle), 2, axis=-1).astype(np.float32) for f in (np.cos, np.sin))
    else:
        cos = np.concatenate([np.cos(angle)] * 2, axis=-1).astype(np.float32)  # [n, d]
        sin = np.concatenate([np.sin(angle)] * 2, axis=-1).astype(np.float32)
    cos.flags.writeable = sin.flags.writeable = False  # shared between calls
    return cos, sin


@lru_cache(maxsize=8)
def _rotation_in(xp, positions: bytes, base: float, d: int, pairs: str = "halves") -> tuple:
    """_rotation's tables where the arithmetic runs (``xp``): copied to a GPU once per pass, not
    twice a layer, each copy a wait for the device."""
    return tuple(xp.asarray(table) for table in _rotation(positions, base, d, pairs))


@lru_cache(maxsize=128)
def _allowed_in(xp, q_positions: bytes, keys: int, window: int | None):
    """``allowed`` for the queries at ``q_positions`` over keys 0 … keys − 1, where the arithmetic
    runs: made once per pass and kind of layer (local or global), not once a layer."""
    q = np.frombuffer(q_positions, dtype=np.int64)
    return xp.asarray(allowed(q, np.arange(keys), window))


def gelu_tanh(x):
    """0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³))): GeGLU's gate."""
    xp = array_namespace(x)
    # x · x · x, not x**3 (NumPy's pow() on every entry, 30 times slower), and each step in
    # place, in the same order as the formula: two [n, d_ff] arrays made, not nine. A fresh
    # array of a megabyte is a few hundred pages for the kernel to hand out and zero, which took
    # longer than the arithmetic (a 512 x 576 RMSNorm: 1.9 ms; 0.35 ms where malloc keeps pages)
    t = x * x
    t *= x
    t *= 0.044715
    t += x
    t *= math.sqrt(2.0 / math.pi)
    t = xp.tanh(t)
    t += 1.0
    t *= x
    t *= 0.5  # 0.5 · x · (1 + tanh): halving is exact, last or first
    return t


def silu(x):
    """x · sigmoid(x): SwiGLU's gate."""
    xp = array_namespace(x)
    t = xp.exp(-x)
    t += 1.0  # in place (see gelu_tanh)
    return x / t


GATES = {"gelu_tanh": gelu_tanh, "silu": silu}  # the feed-forward's gate by its config name


def allowed(q_positions, k_positions, window: int | None):
    """[n, t] True where query i may read key j: j ≤ i, and i − j < window on a local layer."""
    gap = q_positions[:, None] - k_positions[None, :]
    return (gap >= 0) & (gap < window) if window else gap >= 0


def keys_read(q_positions, t: int, window: int | None) -> slice:
    """The keys (0 … t − 1, each at its own position) that the queries at ``q_positions`` may
    read between them: from the earliest query's window's first key (0 on a global layer) to
    the latest query itself. The mask's zeros outside these are never computed."""
    first = max(0, int(q_positions.min()) - window + 1) if window else 0
    return slice(first, min(t, int(q_positions.max()) + 1))


def attend(q, K, V, allowed_here):
    """Scaled dot-product attention of some query rows: q [n_kv, g, m, hd] (each K/V head's
    group of query heads), K and V [n_kv, k, hd] (the keys those rows may read), allowed_here
    [m, k]: (A [n_kv, g, m, k], O [n_kv, g, m, hd]). A group's heads are stacked as the rows of
    one product with the K they share; q is scaled, not the scores ([m, hd] numbers, not [m, k];
    bit for bit the same where √hd is a power of two, as Gemma's 16 and SmolLM2's 8 are)."""
    xp = array_namespace(q)
    n_kv, g, m, hd = q.shape
    k = K.shape[1]
    S = xp.reshape(q / math.sqrt(hd), (n_kv, g * m, hd)) @ xp.matrix_transpose(K)  # [n_kv, g·m, k]
    S = xp.where(allowed_here, xp.reshape(S, (n_kv, g, m, k)), -math.inf)
    A = softmax_rows(S, overwrite=True)  # (S is its own array: normalised where it is)
    return A, xp.reshape(xp.reshape(A, (n_kv, g * m, k)) @ V, (n_kv, g, m, hd))


def attend_into(A, q, K, V, allowed_here):
    """attend on NumPy, for a long prompt's blocks, with fewer passes over the scores and fewer
    calls: -inf written over the forbidden scores where they are, and the softmax written
    straight into its place in the trace's A (``A``: a view [n_kv, g, m, k]); returns O
    [n_kv, g, m, hd]. After Q Kᵀ, 5 passes over a block's scores (the mask, max, subtract, exp,
    sum and divide) where attend makes 9 (a masked copy, softmax_rows' own, a copy into A):
    a fifth of attention's time."""
    n_kv, g, m, hd = q.shape
    q = np.reshape(q / math.sqrt(hd), (n_kv, g * m, hd))
    S = np.reshape(q @ np.swapaxes(K, -1, -2), (n_kv, g, m, K.shape[1]))
    np.copyto(S, -math.inf, where=~allowed_here)  # (broadcast over the heads)
    # softmax, each row's max finite: every query reads at least its own key
    np.subtract(S, np.max(S, axis=-1, keepdims=True), out=A)
    np.exp(A, out=A)  # exp(-inf) = 0 exactly
    A /= np.sum(A, axis=-1, keepdims=True)  # ≥ 1: the max's own exp(0)
    return A @ V[:, None, :, :]  # [n_kv, g, m, k] @ [n_kv, 1, k, hd]: A read where it is


# A long prompt on every core (NumPy): a prefill's products in blocks, each block one BLAS call on
# one thread (core/threads.py), each core taking the next block as it comes free. On this 2-core
# machine, shared with other processes, that ran a 512-token prefill's feed-forward 1.5-2 times
# faster than BLAS's own two threads (a core held up by another process does fewer blocks, where
# BLAS's threads wait for each other, and none is left spinning through the passes that follow).
MULTIPLY_ADDS_FROM = 1 << 24  # a product this large (some 0.3 ms on one core) pays for the pool
MIN_ROWS = 16  # a prompt's rows; a step's few rows keep BLAS's own threads


def on_every_core(x, multiply_adds: int) -> bool:
    """Whether a product of the rows x [n, d] goes on every core: NumPy, a prompt's many rows,
    enough work, and more than one core."""
    return (isinstance(x, np.ndarray) and x.ndim == 2 and x.shape[0] >= MIN_ROWS
            and multiply_adds >= MULTIPLY_ADDS_FROM and threads.WORKERS > 1)  # fmt: skip


def each_on_every_core(work, items) -> None:
    """work(item) for every item, on every core, BLAS on one thread in each."""
    with threads.blas_on_one_thread():
        threads.each(work, list(items), threads.PARALLEL_FROM)


def runs(n: int, size: int) -> list[slice]:
    """0 … n − 1 in runs of ``size`` (the last one shorter)."""
    size = max(1, size)
    return [slice(at, min(at + size, n)) for at in range(0, n, size)]


def times(x, W):
    """x Wᵀ: [n, d] · [m, d]ᵀ → [n, m]. On a long prompt (NumPy) W's rows in blocks (four a core,
    64 at least), each block's product written into its columns of the result: x is read once a
    block, W once in all (Gemma's LM head: 262 144 rows, 640 MB)."""
    n, m = x.shape[0], W.shape[0]
    if not on_every_core(x, n * x.shape[1] * m):
        return x @ W.T
    out = np.empty((n, m), np.result_type(x, W))

    def block(columns: slice) -> None:
        np.matmul(x, W[columns].T, out=out[:, columns])

    each_on_every_core(block, runs(m, max(64, -(-m // (4 * threads.WORKERS)))))
    return out


def by_rows(f, x, width: int):
    """f(x) for the rows x [n, d], where f reads each row alone and makes [n, width] on the way.
    On a long prompt (NumPy) x's rows in blocks (two a core; 128 of 512), each block's
    intermediates in its core's cache from one product to the next (at most PRODUCT_BYTES)."""
    n = x.shape[0]
    if not on_every_core(x, n * x.shape[1] * width):
        return f(x)
    size = min(-(-n // (2 * threads.WORKERS)), threads.PRODUCT_BYTES // (width * x.itemsize))
    blocks = runs(n, max(MIN_ROWS, size))
    done = [None] * len(blocks)

    def block(k: int) -> None:
        done[k] = f(x[blocks[k]])

    each_on_every_core(block, range(len(blocks)))
    return np.concatenate(done)


class Decoder:
    """``encode``/``pieces``/``decode`` (the tokenizer) and ``forward(ids, cache)``; ``name`` is
    the model's registry name (core.decoder_names(); core.load_decoder sets it), ``head`` its LM
    head [vocab, d_model] (None: tied, the embedding)."""

    def __init__(self, config: DecoderConfig, embedding, layers, final_norm, tokenizer,
                 name: str | None = None, head=None):  # fmt: skip
        self.config, self.E, self.layers = config, embedding, layers
        self.final_norm, self.tokenizer = final_norm, tokenizer
        self.name, self.head = name, head
        self.xp = array_namespace(embedding)  # where the weights are, and the arithmetic runs

    def to(self, xp) -> "Decoder":
        """The same model with its weights in the array library ``xp`` (CuPy: on the GPU); itself
        when they are there already."""
        if xp is self.xp:
            return self

        def moved(array):
            return xp.asarray(to_numpy(array))

        layers = [
            replace(w, **{f.name: moved(getattr(w, f.name)) for f in fields(w)
                          if getattr(w, f.name) is not None})
            for w in self.layers
        ]  # fmt: skip
        E, final_norm = moved(self.E), moved(self.final_norm)
        head = None if self.head is None else moved(self.head)
        return Decoder(self.config, E, layers, final_norm, self.tokenizer, self.name, head)

    def encode(self, text: str) -> list[int]:
        return self.tokenizer.encode(text)

    def pieces(self, ids) -> list[str]:
        """Each id as its piece's text as the vocabulary writes it: "▁cat", "<bos>"; a
        byte-fallback piece as its byte ("<0xE4>"); a byte-level BPE piece in GPT-2's letters for
        bytes ("Ġcat")."""
        return [self.tokenizer.vocabulary[i] for i in ids]

    def decode(self, ids) -> str:
        return self.tokenizer.decode(ids)

    def attend(self, i: int, x, positions, cache: KVCache, off=(), A_rows: int | None = None):
        """One layer's attention for the new rows x [n, d_model]: (its output [n, d_model], A).
        The query heads in ``off`` (0-based) are switched off: their outputs zeroed before W_O.
        ``A_rows``: the weights of the last ``A_rows`` rows only are kept (None: every row's)."""
        q, k, v = self.project(i, x, positions)
        O, A = self.read_cache(i, q, k, v, positions, cache, A_rows)
        return self.output(i, O, off), A

    def linear(self, x, W, b):
        """x W^T (+ b where the model has that bias)."""
        return times(x, W) if b is None else times(x, W) + b

    def projections(self, i: int, x):
        """q [h, n, hd], k and v [n_kv, n, hd] of the rows x [n, d_model]: the projections and
        their biases, before QK-norm and RoPE."""
        c, w = self.config, self.layers[i]
        q = split_heads(self.linear(x, w.W_Q, w.b_Q), c.n_heads)  # [h, n, hd]
        k = split_heads(self.linear(x, w.W_K, w.b_K), c.n_kv_heads)  # [n_kv, n, hd]
        v = split_heads(self.linear(x, w.W_V, w.b_V), c.n_kv_heads)
        return q, k, v

    def project(self, i: int, x, positions):
        """q [h, n, hd], k and v [n_kv, n, hd] of the rows x [n, d_model] at ``positions``: the
        projections (with their biases), QK-norm (where the model has it), then RoPE."""
        c, w = self.config, self.layers[i]
        q, k, v = self.projections(i, x)
        if c.qk_norm:
            q, k = rms_norm(q, w.q_norm, c.eps), rms_norm(k, w.k_norm, c.eps)
        base = c.rope_base_of(i)
        return rope(q, positions, base, c.rope_pairs), rope(k, positions, base, c.rope_pairs), v

    def read_cache(self, i: int, q, k, v, positions, cache: KVCache, A_rows: int | None = None):
        """The new rows' k and v appended to layer i's cache, then each new query's weights over
        every key it may read, and its output: (O [h, n, hd], A [h, r, t]), A for the last
        r = ``A_rows`` rows (None: all n). The other rows' weights are made for their outputs
        and dropped: a 512-token prompt's A, SmolLM2's 283 MB over its 30 layers, is never
        written (nor its fresh pages faulted in) where only the last row's is read."""
        c, xp = self.config, self.xp
        if len(cache.K) > i:
            cache.K[i] = xp.concat([cache.K[i], k], axis=1)
            cache.V[i] = xp.concat([cache.V[i], v], axis=1)
        else:
            cache.K.append(k)
            cache.V.append(v)
        K, V = cache.K[i], cache.V[i]  # [n_kv, t, hd]: query head j reads K/V head j // group
        n, t = q.shape[1], K.shape[1]
        q = xp.reshape(q, (c.n_kv_heads, c.group, n, c.head_dim))  # [n_kv, g, n, hd]
        window = c.window if c.is_local(i) else None
        mask = _allowed_in(xp, positions.astype(np.int64).tobytes(), t, window)  # [n, t]
        first = 0 if A_rows is None else n - min(A_rows, n)  # the first row whose A is kept
        A = xp.zeros((c.n_kv_heads, c.group, n - first, t), dtype=q.dtype)  # 0: a key not read
        O = xp.empty((c.n_kv_heads, c.group, n, c.head_dim), dtype=q.dtype)

        long_prompt = isinstance(q, np.ndarray) and c.n_heads * n * t >= threads.PARALLEL_FROM

        def block(item) -> None:  # some K/V heads' groups, some query rows, the keys they read
            heads, rows = item
            keys = keys_read(positions[rows], t, window)
            read = (q[heads, :, rows, :], K[heads, keys, :], V[heads, keys, :], mask[rows, keys])
            start, stop, _ = rows.indices(n)
            dropped = max(0, first - start)  # these rows' first ones, whose A is not kept
            kept = slice(start + dropped - first, stop - first)  # the others' rows in A
            if long_prompt and not dropped:  # every row's kept: written where it is
                O[heads, :, rows, :] = attend_into(A[heads, :, kept, keys], *read)
                return
            if long_prompt:  # into a block of its own (in cache, its pages reused)
                weights = np.empty((*read[0].shape[:-1], keys.stop - keys.start), q.dtype)
                O[heads, :, rows, :] = attend_into(weights, *read)
            else:
                weights, O[heads, :, rows, :] = attend(*read)
            if kept.start < kept.stop:
                A[heads, :, kept, keys] = weights[:, :, dropped:, :]

        if long_prompt:
            # a long prompt: each K/V head's blocks of query rows on every core, each block
            # reading the keys up to its last row only (of a 512-token prompt's [512, 512]
            # scores, 56-58% made: most of the mask's other half never computed), its scores
            # [g · rows, keys] in cache (ROW_BYTES) from Q Kᵀ through A V; the last rows
            # first, the blocks that read the most keys, so that no core is left with a long
            # one at the end
            rows = runs(n, max(MIN_ROWS, threads.ROW_BYTES // (q.itemsize * c.group * t)))
            heads = [slice(j, j + 1) for j in range(c.n_kv_heads)]
            each_on_every_core(block, [(j, r) for r in reversed(rows) for j in heads])
        else:  # every head and row at once
            block((slice(None), slice(None)))
        return xp.reshape(O, (c.n_heads, n, c.head_dim)), xp.reshape(A, (c.n_heads, n - first, t))

    def output(self, i: int, O, off=()):
        """The heads' outputs O [h, n, hd] side by side, through W_O: [n, d_model]."""
        c, xp = self.config, self.xp
        if off:  # a head switched off adds nothing through W_O
            keep = np.ones(c.n_heads, dtype=np.float32)
            keep[sorted(off)] = 0.0
            O = O * xp.asarray(keep)[:, None, None]
        w = self.layers[i]
        return self.linear(merge_heads(O), w.W_O, w.b_O)

    def add_to_stream(self, i: int, h, out):
        """The rest of layer i after its attention's output ``out``: that through its post-norm
        into the residual stream h, then the feed-forward's part likewise: (h after the layer,
        the attention's part, the feed-forward's part)."""
        c, w = self.config, self.layers[i]
        attention = rms_norm(out, w.post_attn_norm, c.eps) if c.post_norms else out
        h = h + attention
        ff = self.feed_forward(i, rms_norm(h, w.ffn_norm, c.eps))
        ff = rms_norm(ff, w.post_ffn_norm, c.eps) if c.post_norms else ff
        return h + ff, attention, ff

    def feed_forward(self, i: int, x):
        """GeGLU or SwiGLU: down(gate(x) · up(x)), the gate through GELU or SiLU, the same for
        every row."""
        w, gate = self.layers[i], GATES[self.config.activation]

        def rows(x):
            gated = gate(x @ w.W_gate.T)
            gated *= x @ w.W_up.T  # in place (see gelu_tanh)
            return gated @ w.W_down.T

        return by_rows(rows, x, self.config.d_ff)  # a long prompt's blocks of rows on every core

    def forward(
        self,
        ids,
        cache: KVCache | None = None,
        residuals: bool = False,
        off=frozenset(),
        rows: int | None = None,
        A_rows: int | None = None,
    ) -> DecoderTrace:
        """The new tokens ``ids`` after whatever ``cache`` holds (None: a new sequence): every
        layer runs on the new rows only, reading the cached K and V of the earlier ones.

        ``residuals``: keep the residual stream after each layer (``H``) and each layer's two
        additions (``added``). ``off``: the heads {(layer, head), ...} (0-based) switched off,
        their outputs zeroed before W_O. ``rows``: logits for the last ``rows`` positions only
        (each position's row is 1 MB: [81, 262 144] float32 stood at 85 MB for a loss that
        ``lens`` reads a few rows at a time from ``H[-1]``); None, every position. ``A_rows``:
        likewise the attention weights (``A`` per layer [h, A_rows, t]); None, every position's."""
        c = self.config
        cache = KVCache() if cache is None else KVCache(list(cache.K), list(cache.V))
        positions = np.arange(cache.length, cache.length + len(ids))
        h = self.embed(ids)  # [n, d_model]
        weights, H, added = [], [h], []  # where the arithmetic runs, until the pass is queued
        for i, w in enumerate(self.layers):
            heads_off = {head for layer, head in off if layer == i}
            x = rms_norm(h, w.attn_norm, c.eps)  # (the attention's input)
            out, A = self.attend(i, x, positions, cache, heads_off, A_rows)
            h, attention, ff = self.add_to_stream(i, h, out)
            weights.append(A)
            if residuals:
                H.append(h)
                added.append((attention, ff))
        kept = h if rows is None else h[len(ids) - min(rows, len(ids)) :]
        logits = self.lens(kept)  # [n, vocab], on the host: on a GPU, the wait for the whole pass
        weights = [to_numpy(A) for A in weights]  # then no wait a layer, only copies
        H = [to_numpy(x) for x in H]
        added = [(to_numpy(attention), to_numpy(ff)) for attention, ff in added]
        if not residuals:
            return DecoderTrace(tuple(ids), positions, logits, weights, cache)
        return DecoderTrace(tuple(ids), positions, logits, weights, cache, H, added)

    def steps(self, tokens, caches) -> list:
        """One new token for each of several sequences, each after its own cache, in one pass:
        the products with the weights (the projections, the feed-forward, the LM head) take
        every sequence's row at once, so the weights are read from memory once for them all,
        and each row's attention reads its own cache only. Trace b is
        ``forward([tokens[b]], caches[b])``'s, to float32's rounding."""
        c = self.config
        caches = [KVCache(list(cache.K), list(cache.V)) for cache in caches]
        positions = np.array([cache.length for cache in caches])  # each row at its own place
        h = self.embed(tokens)  # [B, d_model]
        weights = []  # per layer, per sequence: A [h, 1, t]
        for i, w in enumerate(self.layers):
            q, k, v = self.project(i, rms_norm(h, w.attn_norm, c.eps), positions)
            read = [
                self.read_cache(i, q[:, b : b + 1, :], k[:, b : b + 1, :], v[:, b : b + 1, :],
                                positions[b : b + 1], cache)
                for b, cache in enumerate(caches)
            ]  # fmt: skip
            O = self.xp.concat([O_b for O_b, _ in read], axis=1)  # [h, B, hd]
            h, _, _ = self.add_to_stream(i, h, self.output(i, O))
            weights.append([A_b for _, A_b in read])
        logits = self.lens(h)  # [B, vocab], on the host (a GPU's one wait for the pass)
        weights = [[to_numpy(A_b) for A_b in layer] for layer in weights]
        return [
            DecoderTrace((int(token),), positions[b : b + 1], logits[b : b + 1],
                         [layer[b] for layer in weights], caches[b])
            for b, token in enumerate(tokens)
        ]  # fmt: skip

    def embed(self, ids):
        """The tokens' rows of the embedding (× √d_model where the model scales it), where the
        weights are: [n, d_model]."""
        rows = self.xp.asarray(np.asarray(ids, dtype=np.int64))
        E = self.xp.take(self.E, rows, axis=0)
        return E * math.sqrt(self.config.d_model) if self.config.embed_scale else E

    def lens(self, h):
        """Rows of a residual stream [.., d_model] (on the host or where the weights are) read as
        the last layer's are: through the final RMSNorm and the tied LM head (the embedding,
        transposed, where it is tied): the logit lens, [.., vocab] on the host."""
        h = self.xp.asarray(h)
        head = self.E if self.head is None else self.head
        return to_numpy(times(rms_norm(h, self.final_norm, self.config.eps), head))
