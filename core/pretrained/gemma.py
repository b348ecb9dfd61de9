"""Gemma 3 270M, a trained decoder, in NumPy: the weights read from the GGUF parts where pip put
them, one small function per piece of the layer, and decoding with a K/V cache.

How this layer differs from the walkthrough's textbook one, each in its own function below:
RMSNorm (weights stored as 1 + w) in place of LayerNorm, before and after both halves; one K/V
head shared by four query heads (multi-query), head_dim 256 so 4 × 256 ≠ d_model 640; RMSNorm on
each q and k (QK-norm); RoPE rotating q and k (base 10 000 on the local layers, 1 000 000 on the
global ones); a causal mask with a 512-token window on the local layers (five local, then one
global); the scale 1/√256; GeGLU (tanh GELU) as the feed-forward; the embedding × √640 in, and
the same embedding matrix as the LM head out.

The arithmetic goes through the array API (``array_namespace``), so the same code runs where the
weights are: NumPy, or CuPy on a GPU (``model.to(xp)``), with the K/V cache there too. A trace's
logits, A and residuals come back to the host as NumPy; the cache stays where the weights are.
The positions, RoPE's angles and the window's mask are a few small NumPy arrays made on the host.
"""

import array
import math
from dataclasses import dataclass, field, fields, replace
from functools import lru_cache

import numpy as np
from array_api_compat import array_namespace

from core.backend import to_numpy
from core.heads import merge_heads, split_heads
from core.pretrained.bpe import BPETokenizer
from core.pretrained.gguf_file import GGUFFile

GLOBAL_EVERY = 6  # layers 5, 11, 17 see every earlier token; the others a window
LOCAL_ROPE_BASE = 10_000.0


@dataclass(frozen=True)
class GemmaConfig:
    d_model: int  # 640
    n_layers: int  # 18
    n_heads: int  # 4 query heads
    n_kv_heads: int  # 1 K/V head, shared
    head_dim: int  # 256
    d_ff: int  # 2048
    eps: float
    window: int  # 512 on the local layers
    rope_base: float  # 1 000 000 on the global layers
    context: int  # 32 768

    def is_local(self, layer: int) -> bool:
        return (layer + 1) % GLOBAL_EVERY != 0


@dataclass(frozen=True)
class Layer:
    attn_norm: np.ndarray  # [d_model] 1 + w
    W_Q: np.ndarray  # [n_heads · head_dim, d_model]  (rows: outputs, as stored)
    W_K: np.ndarray  # [n_kv · head_dim, d_model]
    W_V: np.ndarray  # [n_kv · head_dim, d_model]
    q_norm: np.ndarray  # [head_dim]
    k_norm: np.ndarray  # [head_dim]
    W_O: np.ndarray  # [d_model, n_heads · head_dim]
    post_attn_norm: np.ndarray  # [d_model]
    ffn_norm: np.ndarray  # [d_model]
    W_gate: np.ndarray  # [d_ff, d_model]
    W_up: np.ndarray  # [d_ff, d_model]
    W_down: np.ndarray  # [d_model, d_ff]
    post_ffn_norm: np.ndarray  # [d_model]


@dataclass
class KVCache:
    """Each layer's K and V for the positions seen so far: [n_kv, t, head_dim] each."""

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
    A: list  # per layer [n_heads, n, t]: each new query's weights over every key so far
    cache: KVCache  # K and V of every position so far (the input's cache, grown)
    # with residuals=True: the residual stream [n, d_model] as the embedding (× √d_model) put
    # it in, then after each layer (n_layers + 1 arrays; the last one before the final norm) ...
    H: list | None = None
    # ... and what each layer added to it: (its attention's part, its feed-forward's part), each
    # [n, d_model] after its post-norm, so that H[i + 1] = H[i] + attention + feed-forward
    added: list | None = None


def rms_norm(x, weight, eps: float):
    """x / √(mean(x²) + ε) · weight, over the last axis (the weight stored as 1 + w)."""
    xp = array_namespace(x)
    return x / xp.sqrt(xp.mean(x * x, axis=-1, keepdims=True) + eps) * weight


def rope(x, positions, base: float):
    """Rotate each pair (x_i, x_{i + d/2}) of x [.., n, d] by the angle position / base^(2i/d);
    ``positions`` [n] are NumPy's (the angles are made on the host, in float64)."""
    xp = array_namespace(x)
    d = x.shape[-1]
    cos, sin = _rotation_in(xp, positions.astype(np.int64).tobytes(), base, d)
    half = d // 2
    rotated = xp.concat([-x[..., half:], x[..., :half]], axis=-1)  # rotate_half
    return x * cos + rotated * sin


@lru_cache(maxsize=4)
def _rotation(positions: bytes, base: float, d: int) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin [n, d] (float32) of the angles position / base^(2i/d), each half twice: made
    once per pass and base, not once per layer (q and k of 18 layers share two of them)."""
    inverse = base ** (-np.arange(0, d, 2, dtype=np.float64) / d)  # [d/2]
    angle = np.frombuffer(positions, dtype=np.int64)[:, None].astype(np.float64) * inverse
    cos = np.concatenate([np.cos(angle)] * 2, axis=-1).astype(np.float32)  # [n, d]
    sin = np.concatenate([np.sin(angle)] * 2, axis=-1).astype(np.float32)
    cos.flags.writeable = sin.flags.writeable = False  # shared between calls
    return cos, sin


@lru_cache(maxsize=8)
def _rotation_in(xp, positions: bytes, base: float, d: int) -> tuple:
    """_rotation's tables where the arithmetic runs (``xp``): copied to a GPU once per pass, not
    twice a layer, each copy a wait for the device."""
    return tuple(xp.asarray(table) for table in _rotation(positions, base, d))


@lru_cache(maxsize=128)
def _allowed_in(xp, q_positions: bytes, keys: int, window: int | None):
    """``allowed`` for the queries at ``q_positions`` over keys 0 … keys − 1, where the arithmetic
    runs: made once per pass and kind of layer (local or global), not once a layer."""
    q = np.frombuffer(q_positions, dtype=np.int64)
    return xp.asarray(allowed(q, np.arange(keys), window))


def gelu_tanh(x):
    xp = array_namespace(x)
    return 0.5 * x * (1.0 + xp.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


def allowed(q_positions, k_positions, window: int | None):
    """[n, t] True where query i may read key j: j ≤ i, and i − j < window on a local layer."""
    gap = q_positions[:, None] - k_positions[None, :]
    return (gap >= 0) & (gap < window) if window else gap >= 0


def softmax_rows(S):
    xp = array_namespace(S)
    E = xp.exp(S - xp.max(S, axis=-1, keepdims=True))  # every row keeps its own key: no −∞ row
    return E / xp.sum(E, axis=-1, keepdims=True)


class Gemma:
    """``encode``/``pieces``/``decode`` (the tokenizer) and ``forward(ids, cache)``."""

    def __init__(self, config: GemmaConfig, embedding, layers, final_norm, tokenizer):
        self.config, self.E, self.layers = config, embedding, layers
        self.final_norm, self.tokenizer = final_norm, tokenizer
        self.xp = array_namespace(embedding)  # where the weights are, and the arithmetic runs

    def to(self, xp) -> "Gemma":
        """The same model with its weights in the array library ``xp`` (CuPy: on the GPU); itself
        when they are there already."""
        if xp is self.xp:
            return self

        def moved(array):
            return xp.asarray(to_numpy(array))

        layers = [
            replace(w, **{f.name: moved(getattr(w, f.name)) for f in fields(w)})
            for w in self.layers
        ]
        E, final_norm = moved(self.E), moved(self.final_norm)
        return Gemma(self.config, E, layers, final_norm, self.tokenizer)

    def encode(self, text: str) -> list[int]:
        return self.tokenizer.encode(text)

    def pieces(self, ids) -> list[str]:
        """Each id as its piece's text: "▁cat", "<bos>"; a byte-fallback piece as its byte
        ("<0xE4>")."""
        return [self.tokenizer.vocabulary[i] for i in ids]

    def decode(self, ids) -> str:
        return self.tokenizer.decode(ids)

    def attend(self, i: int, x, positions, cache: KVCache, off=()):
        """One layer's attention for the new rows x [n, d_model]: (its output [n, d_model], A).
        The query heads in ``off`` (0-based) are switched off: their outputs zeroed before W_O."""
        q, k, v = self.project(i, x, positions)
        O, A = self.read_cache(i, q, k, v, positions, cache)
        return self.output(i, O, off), A

    def project(self, i: int, x, positions):
        """q [h, n, hd], k and v [1, n, hd] of the rows x [n, d_model] at ``positions``: the
        projections, QK-norm, then RoPE."""
        c, w = self.config, self.layers[i]
        q = split_heads(x @ w.W_Q.T, c.n_heads)  # [h, n, hd]
        k = split_heads(x @ w.W_K.T, c.n_kv_heads)  # [1, n, hd]
        v = split_heads(x @ w.W_V.T, c.n_kv_heads)
        base = LOCAL_ROPE_BASE if c.is_local(i) else c.rope_base
        q = rope(rms_norm(q, w.q_norm, c.eps), positions, base)
        k = rope(rms_norm(k, w.k_norm, c.eps), positions, base)
        return q, k, v

    def read_cache(self, i: int, q, k, v, positions, cache: KVCache):
        """The new rows' k and v appended to layer i's cache, then each new query's weights over
        every key it may read, and its output: (O [h, n, hd], A [h, n, t])."""
        c, xp = self.config, self.xp
        if len(cache.K) > i:
            cache.K[i] = xp.concat([cache.K[i], k], axis=1)
            cache.V[i] = xp.concat([cache.V[i], v], axis=1)
        else:
            cache.K.append(k)
            cache.V.append(v)
        K, V = cache.K[i], cache.V[i]  # [1, t, hd]: every query head reads the one K/V head
        S = q @ xp.matrix_transpose(K) / math.sqrt(c.head_dim)  # [h, n, t]
        window = c.window if c.is_local(i) else None
        mask = _allowed_in(xp, positions.astype(np.int64).tobytes(), K.shape[1], window)  # [n, t]
        A = softmax_rows(xp.where(mask, S, -math.inf))  # [h, n, t]
        return A @ V, A  # O [h, n, hd]

    def output(self, i: int, O, off=()):
        """The heads' outputs O [h, n, hd] side by side, through W_O: [n, d_model]."""
        c, xp = self.config, self.xp
        if off:  # a head switched off adds nothing through W_O
            keep = np.ones(c.n_heads, dtype=np.float32)
            keep[sorted(off)] = 0.0
            O = O * xp.asarray(keep)[:, None, None]
        return merge_heads(O) @ self.layers[i].W_O.T

    def add_to_stream(self, i: int, h, out):
        """The rest of layer i after its attention's output ``out``: that through its post-norm
        into the residual stream h, then the feed-forward's part likewise: (h after the layer,
        the attention's part, the feed-forward's part)."""
        c, w = self.config, self.layers[i]
        attention = rms_norm(out, w.post_attn_norm, c.eps)
        h = h + attention
        ff = rms_norm(self.feed_forward(i, rms_norm(h, w.ffn_norm, c.eps)), w.post_ffn_norm, c.eps)
        return h + ff, attention, ff

    def feed_forward(self, i: int, x):
        """GeGLU: down(gelu(gate(x)) · up(x)), the same for every row."""
        w = self.layers[i]
        return (gelu_tanh(x @ w.W_gate.T) * (x @ w.W_up.T)) @ w.W_down.T

    def forward(
        self,
        ids,
        cache: KVCache | None = None,
        residuals: bool = False,
        off=frozenset(),
        rows: int | None = None,
    ) -> DecoderTrace:
        """The new tokens ``ids`` after whatever ``cache`` holds (None: a new sequence): every
        layer runs on the new rows only, reading the cached K and V of the earlier ones.

        ``residuals``: keep the residual stream after each layer (``H``) and each layer's two
        additions (``added``). ``off``: the heads {(layer, head), ...} (0-based) switched off,
        their outputs zeroed before W_O. ``rows``: logits for the last ``rows`` positions only
        (each position's row is 1 MB: [81, 262 144] float32 stood at 85 MB for a loss that
        ``lens`` reads a few rows at a time from ``H[-1]``); None, every position."""
        c = self.config
        cache = KVCache() if cache is None else KVCache(list(cache.K), list(cache.V))
        positions = np.arange(cache.length, cache.length + len(ids))
        h = self.embed(ids)  # [n, d_model]
        weights, H, added = [], [h], []  # where the arithmetic runs, until the pass is queued
        for i, w in enumerate(self.layers):
            heads_off = {head for layer, head in off if layer == i}
            out, A = self.attend(i, rms_norm(h, w.attn_norm, c.eps), positions, cache, heads_off)
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
        """The tokens' rows of the embedding × √d_model, where the weights are: [n, d_model]."""
        rows = self.xp.asarray(np.asarray(ids, dtype=np.int64))
        return self.xp.take(self.E, rows, axis=0) * math.sqrt(self.config.d_model)

    def lens(self, h):
        """Rows of a residual stream [.., d_model] (on the host or where the weights are) read as
        the last layer's are: through the final RMSNorm and the tied LM head (the embedding,
        transposed): the logit lens, [.., vocab] on the host."""
        h = self.xp.asarray(h)
        return to_numpy(rms_norm(h, self.final_norm, self.config.eps) @ self.E.T)


def read_gemma(paths) -> Gemma:
    """Gemma 3 from a GGUF in parts: its config, tokenizer and weights (float32)."""
    f = GGUFFile(paths)
    m = f.meta
    config = GemmaConfig(
        d_model=int(m["gemma3.embedding_length"]), n_layers=int(m["gemma3.block_count"]),
        n_heads=int(m["gemma3.attention.head_count"]),
        n_kv_heads=int(m["gemma3.attention.head_count_kv"]),
        head_dim=int(m["gemma3.attention.key_length"]), d_ff=int(m["gemma3.feed_forward_length"]),
        eps=float(m["gemma3.attention.layer_norm_rms_epsilon"]),
        window=int(m["gemma3.attention.sliding_window"]),
        rope_base=float(m["gemma3.rope.freq_base"]), context=int(m["gemma3.context_length"]),
    )  # fmt: skip
    names = {
        "attn_norm": "attn_norm", "W_Q": "attn_q", "W_K": "attn_k", "W_V": "attn_v",
        "q_norm": "attn_q_norm", "k_norm": "attn_k_norm", "W_O": "attn_output",
        "post_attn_norm": "post_attention_norm", "ffn_norm": "ffn_norm", "W_gate": "ffn_gate",
        "W_up": "ffn_up", "W_down": "ffn_down", "post_ffn_norm": "post_ffw_norm",
    }  # fmt: skip
    layers = [
        Layer(**{field: f.tensor(f"blk.{i}.{name}.weight") for field, name in names.items()})
        for i in range(config.n_layers)
    ]
    tokenizer = BPETokenizer(
        list(m["tokenizer.ggml.tokens"]),
        array.array("f", m["tokenizer.ggml.scores"].tolist()),  # packed: a list of 262 144
        array.array("i", m["tokenizer.ggml.token_type"].tolist()),  # Python floats was 8 MB
        int(m["tokenizer.ggml.bos_token_id"]),
        int(m["tokenizer.ggml.eos_token_id"]),
    )  # fmt: skip
    embedding = f.tensor("token_embd.weight")
    return Gemma(config, embedding, layers, f.tensor("output_norm.weight"), tokenizer)
