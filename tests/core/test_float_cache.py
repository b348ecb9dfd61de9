"""A GGUF's tensors kept as one float32 file (core/pretrained/float_cache.py): the floats the same,
bit for bit, as gguf's dequantising; a second load maps them without dequantising anything; a
file of the wrong size, a folder that cannot be written and "off" each leave the floats right."""

import os
import subprocess
import sys

import numpy as np
import pytest

from core.pretrained import float_cache
from core.pretrained.float_cache import ENV, FILE, FloatCache
from core.pretrained.gguf_file import BLOCK_BYTES, GGUFFile

ROWS, COLUMNS = 3500, 64  # Q8_0, 256 B of float32 a row: three blocks of BLOCK_BYTES and a bit


def write_small_gguf(path, seed: int = 0) -> dict[str, np.ndarray]:
    """A GGUF of three tensors, written by llama.cpp's own writer: a Q8_0 one over several of
    the reader's blocks, a float32 one and a Q4_0 one; returns the floats it was made from."""
    import gguf
    from gguf.constants import GGMLQuantizationType as Q
    from gguf.quants import quantize

    rng = np.random.default_rng(seed)
    floats = {
        "big.weight": rng.standard_normal((ROWS, COLUMNS)).astype(np.float32),
        "norm.weight": rng.standard_normal(COLUMNS).astype(np.float32),
        "small.weight": rng.standard_normal((8, 64)).astype(np.float32),
    }
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_tensor("big.weight", quantize(floats["big.weight"], Q.Q8_0), raw_dtype=Q.Q8_0)
    writer.add_tensor("norm.weight", floats["norm.weight"])
    writer.add_tensor("small.weight", quantize(floats["small.weight"], Q.Q4_0), raw_dtype=Q.Q4_0)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return floats


@pytest.fixture
def small(tmp_path, monkeypatch):
    """The small GGUF's path; the cache's root in a folder of the test's own."""
    monkeypatch.setenv(ENV, str(tmp_path / "floats"))
    path = tmp_path / "small.gguf"
    write_small_gguf(path)
    return path


def dequantised(path) -> dict[str, np.ndarray]:
    plain = GGUFFile([path], floats=None)
    return {name: plain.tensor(name) for name in plain.tensors}


def the_file(path):
    return FloatCache.for_gguf([path]).path


def test_the_first_load_writes_the_file_and_the_next_maps_it(small, monkeypatch):
    expected = dequantised(small)
    assert expected["big.weight"].shape == (ROWS, COLUMNS)
    assert ROWS * COLUMNS * 4 > 3 * BLOCK_BYTES  # several of the reader's blocks
    first = GGUFFile([small])
    for name, floats in expected.items():
        np.testing.assert_array_equal(first.tensor(name), floats)  # bit for bit, cold
        assert first.tensor(name).dtype == np.float32
    written = the_file(small)
    assert written.stat().st_size == sum(a.nbytes for a in expected.values())
    assert [p.name for p in written.parent.iterdir()] == [FILE]  # no temporary left behind

    def no_dequantising(self, name):
        raise AssertionError(f"{name} dequantised again")

    monkeypatch.setattr(GGUFFile, "blocks", no_dequantising)
    second = GGUFFile([small])
    for name, floats in expected.items():
        kept = second.tensor(name)
        np.testing.assert_array_equal(kept, floats)  # bit for bit, mapped
        assert not kept.flags.writeable  # the file's pages: no one writes into the weights
        with pytest.raises(ValueError):
            kept[..., 0] = 0.0


def test_a_file_of_the_wrong_size_is_not_read_and_is_written_again(small):
    expected = dequantised(small)
    GGUFFile([small]).tensor("big.weight")
    written = the_file(small)
    whole = written.stat().st_size
    with open(written, "r+b") as file:
        file.truncate(whole - 4)  # a file cut short (a disk that filled, a copy interrupted)
    again = GGUFFile([small])
    for name, floats in expected.items():
        np.testing.assert_array_equal(again.tensor(name), floats)
    assert written.stat().st_size == whole


def test_an_unwritable_folder_leaves_the_floats_dequantised(small, tmp_path, monkeypatch):
    blocked = tmp_path / "a file, not a folder"
    blocked.write_text("")
    monkeypatch.setenv(ENV, str(blocked / "floats"))  # mkdir fails under a file
    expected = dequantised(small)
    f = GGUFFile([small])
    for name, floats in expected.items():
        np.testing.assert_array_equal(f.tensor(name), floats)
        assert f.tensor(name).flags.writeable  # its own arrays, no file behind them
    assert blocked.read_text() == ""


def test_off_keeps_nothing(small, tmp_path, monkeypatch):
    monkeypatch.setenv(ENV, "off")
    assert float_cache.root() is None
    f = GGUFFile([small])
    assert f.floats is None
    np.testing.assert_array_equal(f.tensor("big.weight"), dequantised(small)["big.weight"])
    assert not (tmp_path / "floats").exists()


def test_the_default_folder_is_the_users_cache(monkeypatch, tmp_path):
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert float_cache.root() == tmp_path / "self-attention-step-by-step" / "floats"


def test_another_gguf_at_the_same_path_gets_its_own_file(small):
    first = dequantised(small)
    GGUFFile([small]).tensor("big.weight")
    before = the_file(small)
    other = write_small_gguf(small, seed=1)  # rewritten in place: another model, same name
    after = the_file(small)
    assert after != before  # its size or time differs, so its folder does
    f = GGUFFile([small])
    np.testing.assert_array_equal(f.tensor("norm.weight"), other["norm.weight"])  # float32: as is
    assert not np.array_equal(f.tensor("big.weight"), first["big.weight"])
    np.testing.assert_array_equal(f.tensor("big.weight"), dequantised(small)["big.weight"])
    assert not before.parent.exists()  # the earlier version's folder went with its 1 GB


def test_the_same_gguf_installed_again_finds_the_same_file(small, tmp_path):
    """Another environment's copy of the package (another path, another modification time, the
    same bytes) maps the file the first one wrote, and writes none of its own."""
    GGUFFile([small]).tensor("big.weight")
    again = tmp_path / "another-environment" / small.name
    again.parent.mkdir()
    again.write_bytes(small.read_bytes())
    os.utime(again, ns=(1, 1))
    assert the_file(again) == the_file(small)
    written = the_file(small).stat()
    np.testing.assert_array_equal(
        GGUFFile([again]).tensor("big.weight"), dequantised(small)["big.weight"]
    )
    assert the_file(small).stat().st_mtime_ns == written.st_mtime_ns
    assert len(list(the_file(small).parent.parent.iterdir())) == 1


def test_a_temporary_file_left_by_a_writer_that_ended_is_removed(small):
    """A server stopped during its first load leaves its temporary file, as large as the whole:
    the next writer removes it, and leaves a living writer's alone."""
    folder = FloatCache.for_gguf([small]).folder
    folder.mkdir(parents=True)
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    ).stdout.strip()
    left = folder / f".{FILE}.{ended}.1.tmp"
    left.write_bytes(bytes(100))
    living = folder / f".{FILE}.{os.getpid()}.1.tmp"  # (this process: another thread's)
    living.write_bytes(bytes(1))
    GGUFFile([small]).tensor("big.weight")
    assert the_file(small).exists()
    assert not left.exists() and living.exists()
