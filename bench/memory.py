"""Gemma 3 270M's memory, and whether a half-precision store of its tied embedding pays (issue 42),
side by side in one run.

Prints the process's RSS before and after the model loads, every weight array's bytes by dtype
(no float64 copy, one embedding table for both the input and the tied head), and for the tied
embedding [262 144, 640] stored as float32 (as now) or float16: its bytes, the largest logit
difference from transformers' recorded top-20 logits (tests/core/reference/gemma3_270m.json),
and the head's milliseconds per written token (one row through the table), best of 5.

The issue's rule: take float16 if the logits stay within 1e-3 of transformers and the token's time
within 1.2x.

    .venv/bin/python bench/memory.py
"""

import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import core  # noqa: E402
from bench.torch_compare import best_ms  # noqa: E402
from core.pretrained.gemma import rms_norm  # noqa: E402
from ui.work.model_load import rss  # noqa: E402

REFERENCE = Path(__file__).resolve().parents[1] / "tests/core/reference/gemma3_270m.json"


def arrays(model):
    """Every NumPy array the model holds, found through its attributes (one level of lists)."""
    seen, found = set(), []

    def visit(value, depth):
        if isinstance(value, np.ndarray) and id(value) not in seen:
            seen.add(id(value))
            found.append(value)
        elif isinstance(value, (list, tuple)) and depth < 3:
            for item in value:
                visit(item, depth + 1)
        elif hasattr(value, "__dict__") and depth < 3:
            for item in vars(value).values():
                visit(item, depth + 1)

    visit(model, 0)
    return found


def main() -> None:
    before = rss()
    start = time.perf_counter()
    model = core.load_decoder()
    seconds = time.perf_counter() - start
    after = rss()
    print(f"load: {seconds:.1f} s; RSS {before / 2**20:.0f} MB -> {after / 2**20:.0f} MB")
    by_dtype = {}
    for a in arrays(model):
        by_dtype[a.dtype.name] = by_dtype.get(a.dtype.name, 0) + a.nbytes
    print("weights by dtype:", {k: f"{v / 2**20:.0f} MB" for k, v in by_dtype.items()})
    print(f"tied embedding: one array for the input and the head: {model.E.shape} {model.E.dtype}")

    E16 = model.E.astype(np.float16)
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))["prompts"]
    worst = {"float32": 0.0, "float16": 0.0}
    for prompt in reference.values():
        ids = prompt["ids"]
        run = model.forward(ids, residuals=True)
        normed = rms_norm(run.H[-1], model.final_norm, model.config.eps)
        for name, table in (("float32", model.E), ("float16", E16)):
            logits = (normed.astype(table.dtype) @ table.T).astype(np.float64)
            for row, (top, values) in enumerate(
                zip(prompt["top_ids"], prompt["top_logits"], strict=True)
            ):
                diff = np.abs(logits[row, top] - np.asarray(values)).max()
                worst[name] = max(worst[name], float(diff))
    row = normed[-1:]
    ms32 = best_ms(lambda: row @ model.E.T, repeat=5)
    ms16 = best_ms(lambda: row.astype(np.float16) @ E16.T, repeat=2)
    ms16_up = best_ms(lambda: row @ E16.T.astype(np.float32), repeat=2)
    print("\ntied embedding stored as | bytes | max |logit - transformers| | head ms per token")
    rows = (
        ("float32 (now)           ", model.E.nbytes, worst["float32"], ms32),
        ("float16, NumPy's matmul ", E16.nbytes, worst["float16"], ms16),
        ("float16, widened per use", E16.nbytes, worst["float16"], ms16_up),
    )
    for name, size, diff, ms in rows:
        print(f"{name} | {size / 2**20:.0f} MB | {diff:.2e} | {ms:.1f}")
    take = worst["float16"] <= 1e-3 and min(ms16, ms16_up) <= 1.2 * ms32
    print(
        f"-> float16 within 1e-3 of transformers: {worst['float16'] <= 1e-3}; within 1.2x the"
        f" time: {min(ms16, ms16_up) <= 1.2 * ms32} ({min(ms16, ms16_up) / ms32:.1f}x):"
        f" {'take it' if take else 'keep float32'}"
    )


if __name__ == "__main__":
    main()
