"""Core vs PyTorch's CPU multi-head attention, side by side in one run (both cores, every pass).

d_model 512, 8 heads, float32; torch's nn.MultiheadAttention with per-head weights
(need_weights=True, average_attn_weights=False) against core.attention keeping every field
("full") and keeping A and the output ("lean"). Each n is timed twice, the implementations in one
order and then in the other (measure/timing.py alternates blocks of calls, reversing each round).
--passes adds a profile of one block of heads, pass by pass, at n = 2048.

torch is a benchmark-only dependency: `pip install torch==2.13.0` (a CPU wheel).
Run: python bench/torch_compare.py [--quick] [--passes] [--out bench/results/FILE.txt]
"""

import argparse
import math
import os
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import core  # noqa: E402
import core.fast  # noqa: E402
from core import threads  # noqa: E402
from core.softmax import softmax_block, softmax_rows  # noqa: E402
from measure.timing import fmt_seconds, time_side_by_side  # noqa: E402

D_MODEL, HEADS = 512, 8


def problem(n: int):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, D_MODEL)).astype(np.float32)
    W = core.init_weights(core.AttentionConfig(d_model=D_MODEL, n_heads=HEADS, dtype="float32"))
    return X, W


def torch_mha(W):
    import torch

    mha = torch.nn.MultiheadAttention(D_MODEL, HEADS, bias=False, batch_first=True)
    with torch.no_grad():  # the same weights: torch's in_proj is [W_Q; W_K; W_V]^T
        mha.in_proj_weight.copy_(
            torch.from_numpy(np.concatenate([W.W_Q, W.W_K, W.W_V], axis=1).T.copy())
        )
        mha.out_proj.weight.copy_(torch.from_numpy(W.W_O.T.copy()))
    return mha


def compare(n: int, rounds: int, say) -> None:
    import torch

    X, W = problem(n)
    mha = torch_mha(W)
    x = torch.from_numpy(X)[None]

    def torch_call():
        with torch.no_grad():
            return mha(x, x, x, need_weights=True, average_attn_weights=False)

    out, A = torch_call()
    check = core.attention(X, W, HEADS, keep={"A", "output"})
    np.testing.assert_allclose(A[0].numpy(), check.A, atol=1e-4)
    np.testing.assert_allclose(out[0].numpy(), check.output, atol=1e-3)
    del out, A, check
    impls = {
        "torch": torch_call,
        "full": partial(core.attention, X, W, HEADS),
        "lean": partial(core.attention, X, W, HEADS, keep={"A", "output"}),
    }
    for order in (list(impls), list(reversed(impls))):
        t = time_side_by_side(
            {k: impls[k] for k in order}, rounds=rounds, block=3 if n <= 512 else 2
        )
        best = {k: v["best"] for k, v in t.items()}
        med = {k: v["median"] for k, v in t.items()}
        say(
            f"{n:>6} {' > '.join(order):>20} {fmt_seconds(best['torch']):>12}"
            f" {fmt_seconds(best['full']):>12} {fmt_seconds(best['lean']):>12}"
            f" {best['full'] / best['torch']:>9.2f}x {best['lean'] / best['torch']:>9.2f}x"
            f"   ({med['full'] / med['torch']:.2f}x, {med['lean'] / med['torch']:.2f}x)"
        )


def best_ms(call, repeat: int = 7) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times) * 1e3


def passes(n: int, say) -> None:
    """Each pass over the [h, n, n] scores alone, best of 7, this process."""
    X, W = problem(n)
    Q = np.ascontiguousarray((X @ W.W_Q).reshape(n, HEADS, -1).transpose(1, 0, 2))
    K = np.ascontiguousarray((X @ W.W_K).reshape(n, HEADS, -1).transpose(1, 0, 2))
    V = np.ascontiguousarray((X @ W.W_V).reshape(n, HEADS, -1).transpose(1, 0, 2))
    root = math.sqrt(Q.shape[-1])
    Kt = np.swapaxes(K, -1, -2)
    S = Q @ Kt
    A = softmax_rows(S / root)
    out = np.empty_like(S)
    rows = [
        (h, r) for h in range(HEADS) for r in threads.row_blocks(n, n, S.itemsize)
    ]  # fmt: skip

    def fused():  # ÷√d_k and the softmax, block by block, on every core
        def one(item):
            h, r = item
            np.divide(S[h, r], root, out=out[h, r])
            softmax_block(out[h, r], out[h, r])

        threads.each(one, rows, S.size)

    profile = {
        "Q Kᵀ (BLAS, new array)": lambda: Q @ Kt,
        "Q Kᵀ (BLAS, into an array)": lambda: np.matmul(Q, Kt, out=out),
        "a new n x n array, touched once": lambda: np.empty_like(S).fill(0),
        "S ÷ √d_k, one thread, new array": lambda: S / root,
        "S ÷ √d_k, one thread, into an array": lambda: np.divide(S, root, out=out),
        "np.exp, one thread, into an array": lambda: np.exp(A, out=out),
        "softmax, whole-array passes, one thread": lambda: _softmax_one_thread(S, out),
        "softmax in row blocks, every core": lambda: softmax_rows(S, out=out),
        "÷√d_k + softmax fused in row blocks, every core": fused,
        "A V (BLAS)": lambda: A @ V,
        "fused by rows: Q Kᵀ, ÷√d_k, softmax, A V, every core": partial(
            core.fast._attend_block_on_every_core, Q, K, V, {"A"}, {}, None, False, None
        ),
        "core.attention, full": partial(core.attention, X, W, HEADS),
        "core.attention, lean (A, output)": partial(
            core.attention, X, W, HEADS, keep={"A", "output"}
        ),
    }
    say(f"\npasses at n = {n}, [{HEADS}, {n}, {n}] float32 ({S.nbytes / 2**20:.0f} MB an array),"
        f" best of 7 ms; {threads.WORKERS} workers for element-wise passes")  # fmt: skip
    for name, call in profile.items():
        say(f"  {name:<52} {best_ms(call):8.1f}")


def _softmax_one_thread(S, out):
    row_max = S.max(axis=-1, keepdims=True)
    np.subtract(S, row_max, out=out)
    np.exp(out, out=out)
    out /= out.sum(axis=-1, keepdims=True)


def _simd() -> str:
    """The widest vectors NumPy's own loops use on this CPU."""
    from numpy._core._multiarray_umath import __cpu_features__ as features

    return "AVX-512" if features.get("AVX512F") else "AVX2" if features.get("AVX2") else "SSE"


def main():
    import torch

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="n = 512 only, fewer rounds")
    parser.add_argument("--passes", action="store_true", help="the per-pass profile at n = 2048")
    parser.add_argument("--out", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    lines = []

    def say(text: str) -> None:
        print(text, flush=True)
        lines.append(text)

    say(
        f"backend: {core.active_backend()}; torch {torch.__version__}, threads"
        f" {torch.get_num_threads()}; {os.cpu_count()} cores, {_simd()}; d_model {D_MODEL},"
        f" {HEADS} heads, float32"
    )
    say(
        f"{'n':>6} {'order':>20} {'torch MHA':>12} {'core full':>12} {'core lean':>12}"
        f" {'full/torch':>10} {'lean/torch':>10}   (best; median in brackets)"
    )
    for n in (512,) if args.quick else (512, 2048, 4096):
        compare(n, 3 if args.quick else 5, say)
    if args.passes:
        passes(2048, say)
    say("Targets: full <= 1.0x and lean <= 0.8x torch at n = 512 and 2048.")
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
