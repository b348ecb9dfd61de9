"""A GGUF file read where its parts lie: the header, the metadata and each tensor, from part files
that are one file cut in pieces (read in place, never joined, nothing written). llama.cpp's own
``gguf`` package dequantises the tensors.

GGUF, version 3: "GGUF", the version, the tensor and key counts; key-value pairs (typed values,
arrays of them); for each tensor its name, dimensions (fastest first), type and offset; then, from
the next multiple of ``general.alignment``, the tensors' bytes.
"""

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.pretrained.float_cache import FloatCache

_SCALARS = {  # value type -> struct format
    0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d",
}  # fmt: skip
_STRING, _ARRAY = 8, 9
_LENGTH = struct.Struct("<Q")
# A dequantised block's float32 (256 kB): gguf's intermediates for it stay under 1 MB. At 8 MB a
# block, a load in the server (which maps every allocation from 1 MB) faulted in 625,000 pages
# for its temporaries, 88,000 at 256 kB (1 GB of weights is ~75,000 with huge pages): the
# kernel's time was most of the load's, 3-5 s of a core while a class's first pages drew.
BLOCK_BYTES = 256 << 10
_NUMPY = {0: np.uint8, 1: np.int8, 2: np.uint16, 3: np.int16, 4: np.uint32, 5: np.int32,
          6: np.float32, 7: np.bool_, 10: np.uint64, 11: np.int64, 12: np.float64}  # fmt: skip


class Parts:
    """Byte ranges of several files read as if they were one, each read a copy of just those
    bytes. (Memory-mapped, every page of the 240 MB that a load read stayed resident until the map
    closed: the load's high-water mark stood ~410 MB above what it kept, issue 54.)"""

    def __init__(self, paths):
        self.paths = [Path(p) for p in paths]
        self.starts = np.cumsum([0] + [p.stat().st_size for p in self.paths])

    @property
    def size(self) -> int:
        return int(self.starts[-1])

    def read(self, offset: int, size: int) -> np.ndarray:
        """``size`` bytes from ``offset`` (across parts where they run over), as uint8."""
        out = np.empty(size, dtype=np.uint8)
        view, done = memoryview(out), 0
        part = int(np.searchsorted(self.starts, offset, side="right")) - 1
        start = offset - int(self.starts[part])
        while done < size:
            with open(self.paths[part], "rb") as file:
                file.seek(start)
                got = file.readinto(view[done:])
            if not got:
                raise ValueError(f"{self.paths[part]} ends before byte {start}")
            done += got
            part, start = part + 1, 0
        return out


class _Cursor:
    """Reads the header from a bytes copy of the file's start (grown if the header is longer)."""

    def __init__(self, parts: Parts, first: int = 1 << 24):
        self.parts, self.at = parts, 0
        self.buffer = parts.read(0, min(first, parts.size)).tobytes()

    def take(self, size: int) -> bytes:
        self._have(size)
        out = self.buffer[self.at : self.at + size]
        self.at += size
        return out

    def _have(self, size: int) -> None:
        while self.at + size > len(self.buffer):
            grown = min(2 * len(self.buffer), self.parts.size)
            if grown == len(self.buffer):
                raise ValueError("the GGUF header runs past the file's end")
            self.buffer = self.parts.read(0, grown).tobytes()

    def strings(self, count: int) -> list[str]:
        """``count`` strings (u64 length, UTF-8 bytes) in one tight loop: Gemma's 262 144 pieces
        took 0.44 s with the GIL held as ``string()`` calls, while a class's pages drew."""
        out, length = [], _LENGTH.unpack_from
        for _ in range(count):
            self._have(8)
            (size,) = length(self.buffer, self.at)
            self._have(8 + size)
            start = self.at + 8
            out.append(self.buffer[start : start + size].decode("utf-8", errors="replace"))
            self.at = start + size
        return out

    def scalar(self, kind: int):
        fmt = "<" + _SCALARS[kind]
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def string(self) -> str:
        return self.take(self.scalar(10)).decode("utf-8", errors="replace")

    def value(self, kind: int):
        if kind == _STRING:
            return self.string()
        if kind == _ARRAY:
            item, count = self.scalar(4), self.scalar(10)
            if item in _NUMPY:  # numbers: one read for the whole array
                dtype = np.dtype(_NUMPY[item]).newbyteorder("<")
                return np.frombuffer(self.take(count * dtype.itemsize), dtype=dtype).copy()
            if item == _STRING:
                return self.strings(count)
            return [self.value(item) for _ in range(count)]
        return self.scalar(kind)


@dataclass(frozen=True)
class TensorInfo:
    name: str
    shape: tuple  # NumPy order: slowest first (GGUF lists the fastest first)
    kind: int  # GGML quantisation type
    offset: int  # from the start of the whole file


class GGUFFile:
    """The metadata (``meta``) and tensors (``tensor(name)``, float32) of a GGUF in parts; the
    tensors kept in ``floats`` once dequantised (core/pretrained/float_cache.py; None: not kept,
    by default where $SELF_ATTENTION_FLOATS says)."""

    def __init__(self, paths, floats: FloatCache | None | bool = True):
        self.parts = Parts(paths)
        self._floats = floats  # resolved at the first tensor: a header's reader reads no more
        self._kept = None  # name -> float32 view of floats' file ({}: no file to be had)
        cursor = _Cursor(self.parts)
        if cursor.take(4) != b"GGUF":
            raise ValueError("not a GGUF file")
        version, n_tensors, n_keys = cursor.scalar(4), cursor.scalar(10), cursor.scalar(10)
        if version < 2:
            raise ValueError(f"GGUF version {version} is too old")
        self.meta = {}
        for _ in range(n_keys):
            key = cursor.string()
            self.meta[key] = cursor.value(cursor.scalar(4))
        infos = []
        for _ in range(n_tensors):
            name = cursor.string()
            dims = [cursor.scalar(10) for _ in range(cursor.scalar(4))]
            infos.append((name, tuple(reversed(dims)), cursor.scalar(4), cursor.scalar(10)))
        alignment = int(self.meta.get("general.alignment", 32))
        data = -(-cursor.at // alignment) * alignment
        self.tensors = {
            name: TensorInfo(name, shape, kind, data + at) for name, shape, kind, at in infos
        }

    @property
    def floats(self) -> FloatCache | None:
        """Where the tensors' float32 file is (None: nowhere)."""
        if self._floats is True:
            self._floats = FloatCache.for_gguf(self.parts.paths)
        return self._floats or None

    def raw(self, name: str, first: int = 0, count: int | None = None) -> tuple[np.ndarray, int]:
        """A tensor's bytes, shaped [rows, bytes per row] (``count`` rows from row ``first``, or
        all), and its type."""
        from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType  # (llama.cpp's tables)

        info = self.tensors[name]
        block, block_bytes = GGML_QUANT_SIZES[GGMLQuantizationType(info.kind)]
        row = info.shape[-1] // block * block_bytes
        rows = int(np.prod(info.shape[:-1], dtype=np.int64))
        count = rows - first if count is None else min(count, rows - first)
        return self.parts.read(info.offset + first * row, count * row).reshape(
            count, row
        ), info.kind

    def tensor(self, name: str) -> np.ndarray:
        """A tensor as float32, in NumPy's order (a GGUF [640, 1024] is [1024, 640]): a read-only
        view of ``floats``' file where there is one (written at the first tensor asked for,
        every tensor dequantised into it, when an earlier load left none), else dequantised."""
        if self._kept is None:
            layout = [(info.name, info.shape) for info in self.tensors.values()]
            floats = self.floats
            self._kept = (floats and floats.tensors(layout, self.blocks)) or {}
        if self._kept:
            return self._kept[name]
        shape = self.tensors[name].shape
        out = np.empty((int(np.prod(shape[:-1], dtype=np.int64)), shape[-1]), dtype=np.float32)
        at = 0
        for block in self.blocks(name):
            out[at : at + len(block)] = block
            at += len(block)
        return out.reshape(shape)

    def blocks(self, name: str):
        """A tensor dequantised to float32, [rows, columns] in NumPy's order, a block of rows at
        a time, each read and dequantised in turn: the transient copies stay small beside the
        result, small enough (BLOCK_BYTES) to come from the C heap again and again rather than
        each be mapped and its pages faulted in anew (ui/kit/heap.py).

        Each block goes to ``gguf`` as one long row. It works over groups of 16 rows, each a few
        small NumPy calls with the GIL held (16 384 groups for the embedding alone); a quantised
        block (32 or 256 values) never spans two rows, so one row gives the same floats, in about
        half the time and mostly without the GIL, which the pages of a class loading at the same
        moment need (bench/results/, issue 24 round 9)."""
        from gguf.constants import GGMLQuantizationType
        from gguf.quants import dequantize

        shape = self.tensors[name].shape
        rows = int(np.prod(shape[:-1], dtype=np.int64))
        step = max(1, BLOCK_BYTES // max(1, 4 * shape[-1]))  # rows of float32 a block
        for start in range(0, rows, step):
            data, kind = self.raw(name, start, step)
            block = dequantize(data.reshape(1, -1), GGMLQuantizationType(kind))
            yield block.reshape(-1, shape[-1]).astype(np.float32, copy=False)
