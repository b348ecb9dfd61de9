"""Benchmark of the compute core; prints ratios measured side by side in one run.

1. full trace (every intermediate kept) vs output only, n in {64, 512, 2048},
   d_model 512, 8 heads, float32. Target: full <= 1.3x output-only at n = 512.
2. per-token loop and pure-Python scalar loop vs the matrix form, n in {3, 8, 32, 128}.
3. growth exponents of time and peak memory in n.

Run: .venv/bin/python bench/core_speed.py [--quick]
"""

import sys
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import core  # noqa: E402
from measure.timing import fmt_seconds, growth_exponent, peak_bytes, time_side_by_side  # noqa: E402


def setup(n: int, d_model: int, n_heads: int, dtype: str):
    config = core.AttentionConfig(d_model=d_model, n_heads=n_heads, dtype=dtype)
    X = core.embed([f"tok{i}" for i in range(n)], d_model, dtype=dtype)
    X = X + core.positional_encoding(n, d_model, dtype=dtype)
    return X, core.init_weights(config), core.causal_mask(n)


def full_vs_output_only(ns, rounds):
    print("\n## 1. Full trace vs output only (d_model 512, 8 heads, float32, causal mask)")
    print(
        f"{'n':>6} {'full best':>12} {'lean best':>12} {'ratio best':>11} {'ratio median':>13}"
        f" {'full peak':>10} {'lean peak':>10}"
    )
    rows = []
    for n in ns:
        X, W, mask = setup(n, 512, 8, "float32")
        impls = {
            "full": partial(core.attention, X, W, 8, mask),
            "lean": partial(core.attention, X, W, 8, mask, keep={"output"}),
        }
        t = time_side_by_side(impls, rounds=rounds, block=3 if n <= 512 else 1)
        mem = {name: peak_bytes(call) for name, call in impls.items()}
        rows.append((n, t, mem))
        print(
            f"{n:>6} {fmt_seconds(t['full']['best']):>12} {fmt_seconds(t['lean']['best']):>12}"
            f" {t['full']['best'] / t['lean']['best']:>10.2f}x"
            f" {t['full']['median'] / t['lean']['median']:>12.2f}x"
            f" {mem['full'] / 2**20:>8.0f}MB {mem['lean'] / 2**20:>8.0f}MB"
        )
    return rows


def loops_vs_matrix(ns, rounds):
    print("\n## 2. Per-token loop and pure-Python loop vs matrix (d_model 64, 8 heads, float64)")
    print(
        f"{'n':>6} {'matrix':>12} {'per-token':>12} {'pure Python':>12}"
        f" {'loop/matrix':>12} {'python/matrix':>14}"
    )
    for n in ns:
        X, W, mask = setup(n, 64, 8, "float64")
        lists = [core.to_numpy(M).tolist() for M in (X, W.W_Q, W.W_K, W.W_V, W.W_O)]
        impls = {
            "matrix": partial(core.attention, X, W, 8, mask, keep={"output"}),
            "loop": partial(core.attention_loop, X, W, 8, mask),
            "python": partial(core.attention_scalar, *lists, 8, causal=True),
        }
        small = n <= 32
        t = time_side_by_side(impls, rounds=rounds if small else 2, block=3 if small else 1)
        m, lo, py = (t[k]["median"] for k in ("matrix", "loop", "python"))
        print(
            f"{n:>6} {fmt_seconds(m):>12} {fmt_seconds(lo):>12} {fmt_seconds(py):>12}"
            f" {lo / m:>11.0f}x {py / m:>13.0f}x"
        )


def growth(rows):
    print("\n## 3. Growth in n (fitted exponent of value ~ n^k over the sizes of part 1)")
    ns = [n for n, _, _ in rows]
    for name in ("full", "lean"):
        k_time = growth_exponent(ns, [t[name]["best"] for _, t, _ in rows])
        k_mem = growth_exponent(ns, [m[name] for _, _, m in rows])
        print(f"{name:>6}: time ~ n^{k_time:.2f}, peak memory ~ n^{k_mem:.2f}")
    print(
        "(attention is O(n^2) in both once the n x n matrices dominate; at small n the"
        " n x d_model projections dominate, which pulls the fitted exponent below 2)"
    )


def main():
    quick = "--quick" in sys.argv
    print(f"backend: {core.active_backend()}")
    print(f"numpy {np.__version__}")
    rows = full_vs_output_only([64, 512] if quick else [64, 512, 2048], rounds=3 if quick else 5)
    loops_vs_matrix([3, 8, 32] if quick else [3, 8, 32, 128], rounds=3)
    growth(rows)
    at_512 = next(t for n, t, _ in rows if n == 512)
    ratio = at_512["full"]["best"] / at_512["lean"]["best"]
    print(
        f"\nTarget full trace <= 1.3x output-only at n = 512: {ratio:.2f}x ->"
        f" {'met' if ratio <= 1.3 else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
