"""Gemma 3 270M read onto the app's one decoder (core/pretrained/decoder.py): its facts from the
GGUF parts where pip put them, and its weights.

What makes it Gemma, as the decoder's flags: RMSNorm (weights stored as 1 + w) before and after
both halves; one K/V head shared by four query heads (multi-query), head_dim 256 so 4 × 256 ≠
d_model 640; RMSNorm on each q and k (QK-norm); RoPE on halves (base 10 000 on the local layers,
1 000 000 on the global ones); a 512-token window on the local layers (five local, then one
global); GeGLU (tanh GELU) as the feed-forward; the embedding × √640 in, and the same embedding
matrix as the LM head out; a <bos> before every text.
"""

import array

from core.pretrained.bpe import BPETokenizer
from core.pretrained.decoder import (  # noqa: F401 (the names Gemma's callers import from here)
    Decoder,
    DecoderConfig,
    DecoderTrace,
    KVCache,
    Layer,
    allowed,
    rms_norm,
    rope,
    softmax_rows,
)
from core.pretrained.gguf_file import GGUFFile

Gemma = Decoder  # (its earlier name: the decoder was Gemma's alone)
GLOBAL_EVERY = 6  # layers 5, 11, 17 see every earlier token; the others a window
LOCAL_ROPE_BASE = 10_000.0


def gemma_config(m: dict) -> DecoderConfig:
    """Gemma 3's facts, from its GGUF's metadata ``m``."""
    return DecoderConfig(
        d_model=int(m["gemma3.embedding_length"]), n_layers=int(m["gemma3.block_count"]),
        n_heads=int(m["gemma3.attention.head_count"]),
        n_kv_heads=int(m["gemma3.attention.head_count_kv"]),
        head_dim=int(m["gemma3.attention.key_length"]), d_ff=int(m["gemma3.feed_forward_length"]),
        eps=float(m["gemma3.attention.layer_norm_rms_epsilon"]),
        window=int(m["gemma3.attention.sliding_window"]),
        rope_base=float(m["gemma3.rope.freq_base"]), context=int(m["gemma3.context_length"]),
        global_every=GLOBAL_EVERY, local_rope_base=LOCAL_ROPE_BASE, rope_pairs="halves",
        qk_norm=True, post_norms=True, activation="gelu_tanh", embed_scale=True,
    )  # fmt: skip


def read_gemma(paths) -> Decoder:
    """Gemma 3 from a GGUF in parts: its config, tokenizer and weights (float32)."""
    f = GGUFFile(paths)
    m = f.meta
    config = gemma_config(m)
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
    return Decoder(config, embedding, layers, f.tensor("output_norm.weight"), tokenizer)
