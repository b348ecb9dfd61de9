"""NumPy against CuPy for the same attention, side by side (run by bench/gpu_check.sh).

Checks that CuPy agrees with NumPy (float32, <= 1e-5) and times n in {1024, 8192}.
"""

import os
import sys
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import core  # noqa: E402
from core.backend import ENV_VAR  # noqa: E402
from core.timing import fmt_seconds, time_side_by_side  # noqa: E402


def on(backend: str, n: int, d_model: int = 512, heads: int = 8):
    os.environ[ENV_VAR] = backend
    core.backend.cache_clear()
    assert core.backend().name == backend, core.backend()
    config = core.AttentionConfig(d_model=d_model, n_heads=heads, dtype="float32")
    X = core.embed([f"t{i}" for i in range(n)], d_model, dtype="float32")
    return partial(
        core.attention, X, core.init_weights(config), heads, core.causal_mask(n), keep={"output"}
    )


def synchronised(call):
    import cupy

    def run():
        out = call()
        cupy.cuda.Device().synchronize()
        return out

    return run


def main():
    for n in (1024, 8192):
        cpu, gpu = on("numpy", n), on("cupy", n)
        difference = float(np.abs(core.to_numpy(gpu().output) - cpu().output).max())
        scale = float(np.abs(cpu().output).max())
        print(
            f"n = {n}: max |cupy - numpy| = {difference:.2e} (relative {difference / scale:.1e})"
            f" -> {'ok' if difference <= 1e-5 * max(1.0, scale) else 'TOO LARGE'}"
        )
        t = time_side_by_side(
            {"numpy": cpu, "cupy": synchronised(gpu)}, rounds=3, block=1 if n > 2048 else 3
        )
        cpu_time, gpu_time = t["numpy"]["best"], t["cupy"]["best"]
        print(
            f"        numpy {fmt_seconds(cpu_time)}, cupy {fmt_seconds(gpu_time)},"
            f" speed-up {cpu_time / gpu_time:.1f}x"
        )


if __name__ == "__main__":
    main()
