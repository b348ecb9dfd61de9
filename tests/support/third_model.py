"""A third decoder, made in the test alone: a tiny random llama-family model (2 layers,
grouped-query attention with 4 query heads sharing 2 K/V heads, q/k/v/o biases, a byte-level
vocabulary) written with llama.cpp's own GGUF writer into a package folder, and one row added to
the registry. Nothing
else in the app changes: the pages open it as they open Gemma and SmolLM2 (issue 65).

    with third_model(tmp_path) as row:   # row: the registry's Model; row.name is in the URL
        ...
"""

import sys
from contextlib import contextmanager

import numpy as np

NAME = "tiny-llama-test"
PACKAGE = "tiny_llama_test_gguf"
D_MODEL, N_HEADS, N_KV, HEAD_DIM, D_FF, N_LAYERS, CONTEXT = 32, 4, 2, 8, 48, 2, 256
CONTROL = ("<|endoftext|>", "<|im_start|>")
MERGES = ("Ġ t", "h e", "Ġt he", "Ġ a", "i n", "o n", "e r", "a t")  # a few, to merge some pairs


def vocabulary() -> tuple[list[str], list[int]]:
    """GPT-2's 256 byte letters, the merges' results, then the control tokens: pieces and types."""
    from core.pretrained.byte_bpe import LETTERS

    pieces = list(LETTERS) + ["".join(pair.split(" ")) for pair in MERGES] + list(CONTROL)
    types = [1] * (len(pieces) - len(CONTROL)) + [3] * len(CONTROL)
    return pieces, types


def weights(seed: int = 0) -> dict[str, np.ndarray]:
    """Every tensor, as NumPy stores it ([outputs, inputs]), random but seeded; the biases large
    enough that a reader which dropped them would compute another model."""
    rng = np.random.default_rng(seed)
    vocab = len(vocabulary()[0])

    def w(*shape, scale=0.3):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    out = {"token_embd.weight": w(vocab, D_MODEL, scale=1.0),
           "output_norm.weight": 1 + w(D_MODEL, scale=0.1)}  # fmt: skip
    for i in range(N_LAYERS):
        out |= {
            f"blk.{i}.attn_norm.weight": 1 + w(D_MODEL, scale=0.1),
            f"blk.{i}.attn_q.weight": w(N_HEADS * HEAD_DIM, D_MODEL),
            f"blk.{i}.attn_k.weight": w(N_KV * HEAD_DIM, D_MODEL),
            f"blk.{i}.attn_v.weight": w(N_KV * HEAD_DIM, D_MODEL),
            f"blk.{i}.attn_output.weight": w(D_MODEL, N_HEADS * HEAD_DIM),
            f"blk.{i}.attn_q.bias": w(N_HEADS * HEAD_DIM, scale=1.0),
            f"blk.{i}.attn_k.bias": w(N_KV * HEAD_DIM, scale=1.0),
            f"blk.{i}.attn_v.bias": w(N_KV * HEAD_DIM, scale=1.0),
            f"blk.{i}.attn_output.bias": w(D_MODEL, scale=1.0),
            f"blk.{i}.ffn_norm.weight": 1 + w(D_MODEL, scale=0.1),
            f"blk.{i}.ffn_gate.weight": w(D_FF, D_MODEL),
            f"blk.{i}.ffn_up.weight": w(D_FF, D_MODEL),
            f"blk.{i}.ffn_down.weight": w(D_MODEL, D_FF),
        }
    return out


def write_gguf(path, tensors: dict[str, np.ndarray]) -> None:
    """The model's GGUF, by gguf's GGUFWriter: architecture "llama", its facts, its byte-level
    tokenizer (GPT-2's kind: tokens, merges, types), its float32 tensors."""
    import gguf

    pieces, types = vocabulary()
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_block_count(N_LAYERS)
    writer.add_context_length(CONTEXT)
    writer.add_embedding_length(D_MODEL)
    writer.add_feed_forward_length(D_FF)
    writer.add_head_count(N_HEADS)
    writer.add_head_count_kv(N_KV)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_rope_freq_base(10_000.0)
    writer.add_tokenizer_model("gpt2")
    writer.add_token_list(pieces)
    writer.add_token_merges(list(MERGES))
    writer.add_token_types(types)
    writer.add_bos_token_id(pieces.index(CONTROL[0]))
    writer.add_eos_token_id(pieces.index(CONTROL[0]))
    writer.add_add_bos_token(False)
    for name, array in tensors.items():
        writer.add_tensor(name, array)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


@contextmanager
def third_model(folder, seed: int = 0):
    """The model's package written under ``folder`` (its GGUF beside an __init__.py, as pip would
    put a model package), importable, and its registry row added: the llama reader, its byte-level
    piece rule, no presets. Taken out again after."""
    from core.decoder import MODELS
    from core.pretrained.llama import llama_config, llama_tokenizer, read_llama
    from core.pretrained.registry import Model, PieceRule, files_in
    from ui.views.generate import prompt

    package = folder / PACKAGE
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text('"""A test\'s tiny llama model."""\n')
    write_gguf(package / "tiny-llama.gguf", weights(seed))
    row = Model(
        name=NAME, display="Tiny Llama (test)", package=PACKAGE,
        install="pip install --no-deps tiny-llama-test-gguf (made by the test)", find=files_in,
        read=lambda paths: read_llama(paths[0]), facts=llama_config,
        pieces=PieceRule("byte_level", None, "Ġ"), load_s=0.5, tokenizer=llama_tokenizer,
    )  # fmt: skip
    sys.path.insert(0, str(folder))
    MODELS[NAME] = row

    prompt.installed.cache_clear()  # the models installed, read once per process
    try:
        yield row
    finally:
        del MODELS[NAME]
        sys.path.remove(str(folder))
        sys.modules.pop(PACKAGE, None)
        prompt.installed.cache_clear()
