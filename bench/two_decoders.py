"""The two decoders on the one decoder code (core/pretrained/decoder.py), Gemma 3 270M and
SmolLM2-135M, side by side in one run: a cached token's step at 16, 128 and 512 tokens and the
prefill of 512, ours against transformers on the same GGUF (torch, CPU, eager attention, float32
as ours), and the floor that this machine's memory sets: the bytes a step must read (every
weight, float32 as the app keeps them, and the cache so far) over the bandwidth measured here in
the same run (a large array copied: read once, written once).

Run: python bench/two_decoders.py [--out bench/results/two_decoders_issue56.txt]
``--prefill [--rounds 5] [--profile]``: the 512-token prefill only, both models, ours (also as the
server runs it, its C heap set as ui/kit/process.py sets it: "served") and torch side by side
(median and best of the rounds, the order reversed each round): every position's logits (what
``forward(ids)`` returns and transformers' default), and the last position's only (``rows=1``,
``logits_to_keep=1``: what the app's /generate asks for, with the last row's weights only,
``A_rows=1``; and ours keeping every row's weights beside it); with ``--profile``, where ours spends
its time, part by part (bench/results/prefill_*.txt).
(torch==2.13.0, transformers and accelerate are benchmark-only; without them the torch columns
are left out. llama.cpp: set LLAMA_PYTHON to a Python with llama-cpp-python built from its PyPI
source (bench/llama_cpp_timing.py says how); it runs there, in a process of its own, on the same
GGUF file and the same ids, its weights as quantised as the file holds them.)
"""

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from measure.timing import fmt_seconds, time_side_by_side  # noqa: E402

LENGTHS = (16, 128, 512)
TEXT = "注意力机制让模型在生成每个词时都能回头看前面所有的词。 The cat sat on the mat. " * 60


def bandwidth() -> float:
    """Bytes per second this machine moves: the best of a few copies of 512 MB (each reads and
    writes it, so twice its size moves)."""
    a = np.ones(64 * 2**20, dtype=np.float64)
    b = np.empty_like(a)
    best = min(_timed(lambda: np.copyto(b, a)) for _ in range(5))
    return 2 * a.nbytes / best


def _timed(call) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def weight_bytes(model) -> int:
    arrays = [model.E, model.final_norm, model.head]  # (head: None when tied)
    for layer in model.layers:
        arrays += [getattr(layer, name) for name in layer.__dataclass_fields__]
    return sum(a.nbytes for a in arrays if a is not None)


def torch_model(name: str):
    try:
        import torch
        from transformers import AutoModelForCausalLM

        from core.decoder import MODELS
    except ImportError:
        return None, None
    model = MODELS[name]
    paths = model.find(model.package)
    folder = Path(tempfile.mkdtemp(prefix="decoder-bench-"))
    joined = folder / "model.gguf"
    with joined.open("wb") as out:
        for part in paths:
            with part.open("rb") as chunk:
                shutil.copyfileobj(chunk, out)
    hf = AutoModelForCausalLM.from_pretrained(
        folder, gguf_file=joined.name, dtype=torch.float32, attn_implementation="eager"
    ).eval()
    shutil.rmtree(folder, ignore_errors=True)
    return hf, torch


def torch_call(torch, hf, ids, past=None, keep=0):
    """transformers' pass over ``ids``: logits for the last ``keep`` positions (0: every one)."""
    with torch.no_grad():
        return hf(torch.tensor([ids]), past_key_values=past, use_cache=True, logits_to_keep=keep)


def llama_cpp(name: str, ids, folder: Path) -> dict | None:
    """llama.cpp's prefill and steps on ``name``'s GGUF (its parts joined into one file), or
    None when no LLAMA_PYTHON is set."""
    python = os.environ.get("LLAMA_PYTHON")
    if not python:
        return None
    from core.decoder import _paths

    gguf = folder / f"{name}.gguf"
    with open(gguf, "wb") as whole:
        for part in _paths(name):
            with open(part, "rb") as piece:
                shutil.copyfileobj(piece, whole)
    (folder / "ids.json").write_text(json.dumps([int(i) for i in ids]))
    script = Path(__file__).with_name("llama_cpp_timing.py")
    lengths = ",".join(map(str, LENGTHS))
    out = subprocess.run([python, str(script), str(gguf), str(folder / "ids.json"), lengths],
                         capture_output=True, text=True, check=True)  # fmt: skip
    gguf.unlink()
    timed = json.loads(out.stdout.strip().splitlines()[-1])
    return {"prefill": timed["prefill"], "step": {int(n): s for n, s in timed["step"].items()}}


def bench_model(name: str, rate: float, say) -> None:
    import copy

    import core

    model = core.load_decoder(name)
    c, weights = model.config, weight_bytes(model)
    hf, torch = torch_model(name)
    say(f"{name}: {c.n_layers} layers, {c.n_heads} query heads over {c.n_kv_heads} K/V heads;"
        f" weights {weights / 2**20:.0f} MB as float32")  # fmt: skip
    ids = model.encode(TEXT)[: 512 + 4]  # (llama.cpp's steps go 3 past the longest)
    with tempfile.TemporaryDirectory() as folder:
        native = llama_cpp(name, ids, Path(folder))
    ids = ids[:512]
    impls = {"ours": lambda: model.forward(ids)}
    if hf is not None:
        impls["torch"] = lambda: torch_call(torch, hf, ids)
    timed = time_side_by_side(impls, rounds=2, block=1)
    row = f"  prefill 512: ours {fmt_seconds(timed['ours']['best'])}"
    if hf is not None:
        row += f", torch {fmt_seconds(timed['torch']['best'])}"
    if native is not None:
        row += f", llama.cpp {fmt_seconds(native['prefill'])} (ours÷llama.cpp"
        row += f" {timed['ours']['best'] / native['prefill']:.1f}x)"
    say(row)
    head = "  n     ours/token   torch/token   ours÷torch   floor   ours÷floor"
    say(head + ("   llama.cpp   ours÷llama.cpp" if native is not None else ""))
    for n in LENGTHS:
        prefix = model.forward(ids[: n - 1])
        impls = {"ours": lambda p=prefix, n=n: model.forward(ids[n - 1 : n], p.cache)}
        if hf is not None:
            past = torch_call(torch, hf, ids[: n - 1]).past_key_values
            impls["torch"] = lambda past=past, n=n: torch_call(
                torch, hf, ids[n - 1 : n], copy.deepcopy(past)
            )
        timed = time_side_by_side(impls, rounds=3, block=2)
        floor = (weights + prefix.cache.nbytes) / rate
        ours = timed["ours"]["best"]
        row = f"  {n:<5} {fmt_seconds(ours):>10}"
        if hf is not None:
            theirs = timed["torch"]["best"]
            row += f" {fmt_seconds(theirs):>13} {ours / theirs:>11.2f}x"
        else:
            row += f" {'-':>13} {'-':>12}"
        row += f" {fmt_seconds(floor):>7} {ours / floor:>10.1f}x"
        if native is not None:
            row += f" {fmt_seconds(native['step'][n]):>11} {ours / native['step'][n]:>13.1f}x"
        say(row)


# ours' profile: the decoder's pieces, each timed as a whole where it is called from the pass
# (a piece inside another counts as that other's: the final norm as the head's); "other" is the
# rest (the embedding, the residual sums, the pass's own Python)
PIECES = {"projections": "projections (Q K V, O)", "output": "projections (Q K V, O)",
          "read_cache": "attention (scores, softmax, A V)", "feed_forward": "feed-forward",
          "rms_norm": "norms", "rope": "RoPE", "lens": "LM head (and the final norm)"}  # fmt: skip


@contextlib.contextmanager
def profiled(seconds: dict):
    """Adds each piece's seconds in a pass to ``seconds[part]`` while the block runs."""
    from core.pretrained import decoder

    depth, saved = [0], {}

    def timed(part, f):
        def call(*args, **kwargs):
            depth[0] += 1
            start = time.perf_counter()
            try:
                return f(*args, **kwargs)
            finally:
                depth[0] -= 1
                if depth[0] == 0:
                    seconds[part] = seconds.get(part, 0.0) + time.perf_counter() - start

        return call

    for name, part in PIECES.items():
        owner = decoder.Decoder if hasattr(decoder.Decoder, name) else decoder
        saved[name] = (owner, getattr(owner, name))
        setattr(owner, name, timed(part, getattr(owner, name)))
    try:
        yield
    finally:
        for name, (owner, f) in saved.items():
            setattr(owner, name, f)


def profile(model, ids, rounds: int, say) -> None:
    """Ours' 512-token prefill part by part: the median of ``rounds`` passes."""
    passes = []
    for _ in range(rounds):
        seconds = {}
        with profiled(seconds):
            start = time.perf_counter()
            model.forward(ids)
            total = time.perf_counter() - start
        seconds["other"] = total - sum(seconds.values())
        seconds["total"] = total
        passes.append(seconds)
    say(f"  ours, part by part (median of {rounds} passes; parts' medians need not add up):")
    for part in [*dict.fromkeys(PIECES.values()), "other", "total"]:
        say(f"    {part:<34} {fmt_seconds(statistics.median(p.get(part, 0.0) for p in passes))}")


def as_served(run):
    """``run()`` as the server runs a model's pass: its C heap as ui/kit/process.py sets it (every
    allocation of a megabyte or more mapped on its own), lifted for the pass as a turn at the
    model lifts it (ui/kit/heap.py's for_passes). After it, the bar at glibc's largest (32 MB),
    where glibc's own moving bar stands after a model's first passes, for the other columns."""
    from ui.kit import heap, process

    heap.map_from(process.MAP_FROM)
    try:
        with heap.for_passes():
            return run()
    finally:
        heap.map_from(heap.PASS_MAP_FROM)


def bench_prefill(name: str, rounds: int, say, parts: bool) -> None:
    """The 512-token prefill, ours, ours as the server runs it ("served": its C heap) and torch
    side by side: every position's logits, and the last position's only."""
    import core

    model = core.load_decoder(name)
    hf, torch = torch_model(name)
    ids = model.encode(TEXT)[:512]
    impls = {
        "ours": lambda: model.forward(ids),
        "ours, last row": lambda: model.forward(ids, rows=1, A_rows=1),
        "ours, last row, every A": lambda: model.forward(ids, rows=1),
        "served": lambda: as_served(lambda: model.forward(ids)),
        "served, last row": lambda: as_served(lambda: model.forward(ids, rows=1, A_rows=1)),
    }
    if hf is not None:
        impls["torch"] = lambda: torch_call(torch, hf, ids)
        impls["torch, last row"] = lambda: torch_call(torch, hf, ids, keep=1)
    timed = time_side_by_side(impls, rounds=rounds, block=1, pause=0.5)
    say(f"{name}, prefill of {len(ids)} tokens (median, best of {rounds}):")
    for rows, suffix, against in (
        ("every position's logits", "", ""),
        ("the last position's only", ", last row", ", last row"),
        ("  the same, every row's A", ", last row, every A", ", last row"),
    ):
        row = f"  {rows:<24}"
        for who in ("ours", "served", "torch"):
            if who + suffix in timed:
                t = timed[who + suffix]
                row += f"  {who} {fmt_seconds(t['median'])} ({fmt_seconds(t['best']).strip()})"
        if "torch" + against in timed:
            for who in ("ours", "served"):
                if who + suffix in timed:
                    ratio = timed[who + suffix]["median"] / timed["torch" + against]["median"]
                    row += f"  {who}÷torch {ratio:.2f}x"
        say(row)
    if parts:
        profile(model, ids, rounds, say)


def main() -> list[str]:
    lines = []

    def say(text=""):
        print(text, flush=True)
        lines.append(text)

    import core

    rate = bandwidth()
    say(f"backend: {core.active_backend()}; memory bandwidth measured: {rate / 1e9:.1f} GB/s")
    for name in core.decoder_names():
        bench_model(name, rate, say)
        core.load_decoder.cache_clear()  # one model in memory at a time
    return lines


def main_prefill(rounds: int, parts: bool) -> list[str]:
    lines = []

    def say(text=""):
        print(text, flush=True)
        lines.append(text)

    import core
    from core import threads

    say(f"backend: {core.active_backend()}; {os.cpu_count()} cores, {threads.WORKERS} workers;"
        f" load average before: {os.getloadavg()[0]:.1f}")  # fmt: skip
    for name in core.decoder_names():
        bench_prefill(name, rounds, say, parts)
        core.load_decoder.cache_clear()
    say(f"load average after: {os.getloadavg()[0]:.1f}")
    return lines


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--out")
    parser.add_argument("--prefill", action="store_true", help="the 512-token prefill only")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", action="store_true", help="with --prefill: ours by part")
    args = parser.parse_args()
    printed = main_prefill(args.rounds, args.profile) if args.prefill else main()
    if args.out:
        Path(args.out).write_text("\n".join(printed) + "\n", encoding="utf-8")
