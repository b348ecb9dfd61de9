"""Core vs PyTorch's CPU multi-head attention, side by side in one run (issue: fast at every size).

torch is a benchmark-only dependency: `pip install torch==2.13.0` (a CPU wheel).
Run: python bench/torch_compare.py [--quick]
"""

import sys
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import core  # noqa: E402
from core.timing import fmt_seconds, time_side_by_side  # noqa: E402


def main():
    import torch

    quick = "--quick" in sys.argv
    d_model, heads = 512, 8
    print(
        f"backend: {core.active_backend()}; torch {torch.__version__},"
        f" threads {torch.get_num_threads()}"
    )
    print(
        f"{'n':>6} {'torch MHA':>12} {'core full':>12} {'core lean':>12}"
        f" {'full/torch':>11} {'lean/torch':>11}   (best; median in brackets)"
    )
    for n in (512,) if quick else (512, 2048):
        rng = np.random.default_rng(0)
        X = rng.normal(size=(n, d_model)).astype(np.float32)
        W = core.init_weights(core.AttentionConfig(d_model=d_model, n_heads=heads, dtype="float32"))
        mha = torch.nn.MultiheadAttention(d_model, heads, bias=False, batch_first=True)
        with torch.no_grad():  # the same weights: torch's in_proj is [W_Q; W_K; W_V]^T
            mha.in_proj_weight.copy_(
                torch.from_numpy(np.concatenate([W.W_Q, W.W_K, W.W_V], axis=1).T.copy())
            )
            mha.out_proj.weight.copy_(torch.from_numpy(W.W_O.T.copy()))
        x = torch.from_numpy(X)[None]

        def torch_call(mha=mha, x=x):
            with torch.no_grad():
                return mha(x, x, x, need_weights=True, average_attn_weights=False)

        out, A = torch_call()
        check = core.attention(X, W, heads)
        np.testing.assert_allclose(A[0].numpy(), check.A, atol=1e-4)
        np.testing.assert_allclose(out[0].numpy(), check.output, atol=1e-3)
        impls = {
            "torch": torch_call,
            "full": partial(core.attention, X, W, heads),
            "lean": partial(core.attention, X, W, heads, keep={"A", "output"}),
        }
        t = time_side_by_side(impls, rounds=3 if quick else 5, block=3 if n <= 512 else 2)
        best = {k: v["best"] for k, v in t.items()}
        med = {k: v["median"] for k, v in t.items()}
        print(
            f"{n:>6} {fmt_seconds(best['torch']):>12} {fmt_seconds(best['full']):>12}"
            f" {fmt_seconds(best['lean']):>12} {best['full'] / best['torch']:>10.2f}x"
            f" {best['lean'] / best['torch']:>10.2f}x   ({med['full'] / med['torch']:.2f}x,"
            f" {med['lean'] / med['torch']:.2f}x)"
        )
    print("Targets: full <= 1.5x torch at n = 2048 (aim 1.0x); lean at or below torch.")


if __name__ == "__main__":
    main()
