"""Read a .safetensors file into NumPy arrays (the format is a JSON header, then raw bytes).

The arrays are views of the file mapped read-only, not a copy of it: a model's word table
(MiniLM's 30 522 rows, 47 MB) stays on disk but for the rows a sentence looks up, and the read
makes no second copy of the file (MiniLM's load peaked 87 MB above what it kept)."""

import json
import mmap
import struct
from pathlib import Path

import numpy as np

DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32}


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    with open(path, "rb") as file:
        (header_size,) = struct.unpack("<Q", file.read(8))
        header = json.loads(file.read(header_size))
        data = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    base = 8 + header_size
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, stop = info["data_offsets"]
        dtype = np.dtype(DTYPES[info["dtype"]])
        array = np.frombuffer(data, dtype, (stop - start) // dtype.itemsize, base + start)
        tensors[name] = array.reshape(info["shape"])
    return tensors
