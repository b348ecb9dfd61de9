"""The README's server keeps Gemma's float32 weights in one file at its first start and maps that
file at the next (core/pretrained/float_cache.py): the second start writes nothing, holds the
weights as the file's pages (not its own memory), and /generate shows the same next tokens."""

import asyncio
import math
import time
from contextlib import AsyncExitStack
from importlib import import_module
from pathlib import Path

import core
from core.pretrained.float_cache import ENV, FILE
from core.pretrained.gguf_file import GGUFFile
from tests.support.model_work import until_loaded
from tests.support.servers import serving
from tests.support.session import connect

READY_S = 120  # a load and the page's first pass on a busy machine, with margin
NEXT = "Next token"  # /generate's section, drawn once the model has written its first pass


def status_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise KeyError(field)


async def generate_page(port: int) -> list[str]:
    """/generate's texts once the model has drawn it (English, the example prompt)."""
    base = f"http://127.0.0.1:{port}"
    await until_loaded(base, READY_S)
    async with AsyncExitStack() as stack:
        learner = await connect(base, "generate", "lang=en", None, stack)
        started = time.monotonic()
        while not any(NEXT in text for text in learner.texts):
            assert time.monotonic() - started < READY_S, "the page never came"
            await asyncio.sleep(0.5)
            await learner.run()
        return list(learner.texts)


def one_start() -> tuple[list[str], int, int]:
    """serve.py started, /generate drawn: its texts, and the server's resident kB that are file
    pages (RssFile) and its own (RssAnon)."""
    with serving(script="serve.py") as (port, server):
        texts = asyncio.run(generate_page(port))
        return texts, status_kb(server.pid, "RssFile"), status_kb(server.pid, "RssAnon")


def test_the_first_start_writes_the_file_and_the_next_maps_it(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV, str(tmp_path))
    package = import_module(core.decoder_entry("gemma3-270m").package)
    header = GGUFFile(package.chunk_paths(), floats=None)
    size = sum(4 * math.prod(info.shape) for info in header.tensors.values())

    first_texts, first_file_kb, _ = one_start()
    [written] = list(tmp_path.glob(f"gemma*/{FILE}"))  # one folder: Gemma's (SmolLM2 unloaded)
    assert written.stat().st_size == size
    assert not list(tmp_path.glob("*/.*.tmp"))
    assert first_file_kb * 1024 > 0.9 * size  # even the first start holds the file's pages
    kept = written.stat()

    second_texts, second_file_kb, second_anon_kb = one_start()
    again = written.stat()
    assert (again.st_ino, again.st_mtime_ns, again.st_size) == (
        kept.st_ino,
        kept.st_mtime_ns,
        kept.st_size,
    )  # mapped, not written again
    assert second_file_kb * 1024 > 0.9 * size
    assert second_anon_kb * 1024 < size / 2  # the weights are not in the server's own memory
    bars = [text for text in first_texts if "The 10 most likely next tokens" in text]
    assert bars and "0.067 at ␣table" in bars[0]  # the example's next token, computed
    assert second_texts == first_texts  # every number on the page the same
