"""A GGUF's tensors kept as one file of float32 once dequantised, so that the next process to load
the model maps that file instead of dequantising again.

Dequantising Gemma's 1.07 GB takes 3-6 s of a core on an idle machine, in thousands of small
NumPy calls that each take the GIL back. In a server whose class holds that GIL (120 learners
arriving, 24 of them pressing Measure) it took 19-25 s, and the model's pages waited for it
(bench/results/issue67_round2.txt). Mapped from this file, a load makes a handful of system calls
and no such NumPy call: the kernel reads the pages in as it maps them, without the GIL. Processes
on one machine (deploy/local.sh's replicas) map the same file and so share one copy of the floats
in the page cache.

One folder per GGUF, named after its first part and a hash of what it is made of (each part's
name, size, and first and last bytes) and of this format's VERSION; writing one removes the
folders of other GGUFs with that first part's name (the model's earlier versions). In it,
``floats.f32``: every tensor's float32 values in NumPy's order, one after the other in the
GGUF's own order, nothing else (the GGUF's header gives each one's shape, hence where it lies).
It is written under a temporary name and renamed into place whole: a reader sees the whole file
or none, and a file of the wrong size is not read (it is written again).

Where: ``$SELF_ATTENTION_FLOATS`` if set ("off": no file at all, every load dequantises), else
``$XDG_CACHE_HOME/self-attention-step-by-step/floats`` (``~/.cache/...`` without it). Where the
folder cannot be made or the file written (a read-only home, a full disk), a load dequantises as
before and keeps nothing.
"""

import hashlib
import mmap
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

VERSION = 1  # this format; a change of it leaves the old folders unread
ENV = "SELF_ATTENTION_FLOATS"
OFF = "off"
FILE = "floats.f32"

Layout = list[tuple[str, tuple]]  # (tensor name, shape), in the file's order
Blocks = Callable[[str], Iterator[np.ndarray]]  # a tensor's float32, a block of rows at a time


def root() -> Path | None:
    """The folder every GGUF's folder goes in (None: switched off)."""
    chosen = os.environ.get(ENV, "")
    if chosen.strip().lower() == OFF:
        return None
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "self-attention-step-by-step" / "floats"


SAMPLE = 64 << 10  # bytes read from each end of each part for its identity


def identity(paths) -> str:
    """A GGUF's folder name: its first part's name and a hash of VERSION and of every part's
    name, size, first and last SAMPLE bytes (the header, with every tensor's name, shape and
    place; the last tensor's data). The same package installed again, in another environment
    or at another time, is the same GGUF and finds the same file."""
    paths = [Path(p) for p in paths]
    digest = hashlib.sha256(f"v{VERSION}".encode())
    for path in paths:
        size = path.stat().st_size
        digest.update(f"\n{path.name}:{size}\n".encode())
        with open(path, "rb") as file:
            digest.update(file.read(SAMPLE))
            file.seek(max(0, size - SAMPLE))
            digest.update(file.read(SAMPLE))
    return f"{paths[0].stem}-{digest.hexdigest()[:20]}"


def _bytes(shape: tuple) -> int:
    return int(np.prod(shape, dtype=np.int64)) * 4


class FloatCache:
    """The float32 file of one GGUF, in ``folder``."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.path = folder / FILE

    @classmethod
    def for_gguf(cls, paths) -> "FloatCache | None":
        """The cache of the GGUF in ``paths`` (None when switched off)."""
        where = root()
        return None if where is None else cls(where / identity(paths))

    def tensors(self, layout: Layout, blocks: Blocks) -> dict[str, np.ndarray] | None:
        """Every tensor of ``layout``, read-only views of the file mapped; the file written first
        if there is no whole one, each tensor's blocks (``blocks(name)``) as they come. None if
        it can be neither read nor written."""
        total = sum(_bytes(shape) for _, shape in layout)
        mapped = self._mapped(total)
        if mapped is None and self._write(layout, blocks, total):
            mapped = self._mapped(total)
        if mapped is None:
            return None
        views, at = {}, 0
        for name, shape in layout:
            size = _bytes(shape)
            views[name] = np.frombuffer(mapped, np.float32, size // 4, at).reshape(shape)
            at += size
        return views

    def _forget_the_dead(self) -> None:
        """Remove the temporary files of writers that ended before renaming theirs (a server
        stopped during its first load): each holds the file's whole size."""
        for left in self.folder.glob(f".{FILE}.*.tmp"):
            try:
                os.kill(int(left.name.split(".")[3]), 0)
            except (ProcessLookupError, ValueError, IndexError):
                left.unlink(missing_ok=True)
            except PermissionError:  # alive, another user's
                pass

    def _forget_the_others(self) -> None:
        """Remove the folders of other GGUFs whose first part has this one's name: the model's
        earlier versions (a package updated), or a test's models, each written once. A process
        that still maps such a file keeps it until it ends (Linux frees an unlinked file's pages
        when its last map goes)."""
        stem = self.folder.name.rsplit("-", 1)[0]
        for other in self.folder.parent.iterdir():
            if other != self.folder and other.name.rsplit("-", 1)[0] == stem and other.is_dir():
                for path in other.iterdir():
                    path.unlink(missing_ok=True)
                other.rmdir()

    def _mapped(self, total: int):
        """The whole file, mapped read-only (its pages read in as it is mapped), or None."""
        try:
            with open(self.path, "rb") as file:
                if os.fstat(file.fileno()).st_size != total or total == 0:
                    return None
                flags = mmap.MAP_PRIVATE | getattr(mmap, "MAP_POPULATE", 0)
                return mmap.mmap(file.fileno(), total, flags=flags, prot=mmap.PROT_READ)
        except (OSError, ValueError):
            return None

    def _write(self, layout: Layout, blocks: Blocks, total: int) -> bool:
        """The file written whole under a temporary name (its space taken first: a disk too
        full fails here, not half-way), then renamed into place. False if it could not be."""
        temporary = self.folder / f".{FILE}.{os.getpid()}.{threading.get_ident()}.tmp"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._forget_the_dead()
            with open(temporary, "wb") as file:
                if hasattr(os, "posix_fallocate"):
                    os.posix_fallocate(file.fileno(), 0, total)
                for name, _ in layout:
                    for block in blocks(name):
                        file.write(memoryview(np.ascontiguousarray(block, np.float32)).cast("B"))
                if file.tell() != total:
                    raise OSError(f"wrote {file.tell()} bytes of {total}")
            os.replace(temporary, self.path)
        except OSError:
            try:
                temporary.unlink(missing_ok=True)
            except OSError:  # (no folder to have left it in)
                pass
            return False
        try:
            self._forget_the_others()
        except OSError:  # (another user's, or already gone: the new file stands either way)
            pass
        return True
