"""NumPy against CuPy for the same attention, side by side (run by bench/gpu_check.sh).

1. agreement: CuPy's A and output against NumPy's, float32, at n in {1024, 8192} (bound 1e-5);
2. speed at n in {1024, 8192}: d_model 512, 8 heads, causal, the output brought to the host;
3. the crossover: the n from which the GPU wins, for the app's default layer (d_model 8, 2 heads,
   every intermediate brought to the host, as the walkthrough does) and for d_model 512, 8 heads;
4. the cost page's own measurement (ui/cost_measure.measure) on both backends, up to n = 8192;
5. the automatic choice (core.active_backend(n), GPU from GPU_FROM_N) against the faster of the two.

Every time includes bringing the numbers back to the host, which is what the app shows.
Usage: python bench/gpu_timing.py [results.json]   (--dry-run: NumPy in both roles, small n)
"""

import datetime
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import core  # noqa: E402
from core.backend import ENV_VAR  # noqa: E402
from measure.timing import fmt_seconds, time_side_by_side  # noqa: E402

DRY_RUN = "--dry-run" in sys.argv
GPU = "numpy" if DRY_RUN else "cupy"
CHECK_NS = (64, 128) if DRY_RUN else (1024, 8192)
SWEEP_NS = (4, 16, 64) if DRY_RUN else (4, 16, 64, 256, 512, 1024, 2048, 4096)
LAYERS = {"app default (d_model 8, 2 heads, full trace)": (8, 2, None)}
LAYERS["d_model 512, 8 heads, output only"] = (512, 8, {"output"})


def use(backend: str | None):
    """Force ``backend``, or (None) let core.active_backend(n) choose."""
    if backend is None:
        os.environ.pop(ENV_VAR, None)
    else:
        os.environ[ENV_VAR] = backend
    core.active_backend.cache_clear()
    assert backend is None or core.active_backend().name == backend or DRY_RUN, (
        core.active_backend()
    )


def placed(backend: str | None, n: int, d_model: int, heads: int, keep):
    """A call computing attention on ``backend`` (None: the automatic choice for n) and bringing
    the kept fields to the host."""
    use(backend)
    config = core.AttentionConfig(d_model=d_model, n_heads=heads, dtype="float32")
    X = core.embed([f"t{i}" for i in range(n)], d_model, dtype="float32")
    W, mask = core.init_weights(config), core.causal_mask(n)
    keep = core.FIELDS if keep is None else keep

    def run():
        trace = core.attention(X, W, heads, mask, keep=keep)
        return {name: core.to_numpy(getattr(trace, name)) for name in keep}

    return run


def agreement(results: dict):
    print("1. CuPy against NumPy (float32, d_model 512, 8 heads, causal)")
    rows = results["agreement"] = []
    for n in CHECK_NS:
        keep = {"A", "output"}
        cpu, gpu = placed("numpy", n, 512, 8, keep)(), placed(GPU, n, 512, 8, keep)()
        row = {"n": n}
        for name in sorted(keep):
            row[name] = float(np.abs(gpu[name] - cpu[name]).max())
        row["ok"] = all(row[name] <= 1e-5 for name in keep)
        rows.append(row)
        print(
            f"   n = {n:5d}: max |A_cupy - A_numpy| = {row['A']:.1e},"
            f" max |O_cupy - O_numpy| = {row['output']:.1e} -> {'ok' if row['ok'] else 'TOO LARGE'}"
        )
        del cpu, gpu


def side_by_side(n, d_model, heads, keep) -> dict:
    impls = {
        "numpy": placed("numpy", n, d_model, heads, keep),
        "cupy": placed(GPU, n, d_model, heads, keep),
    }
    slow = n * n * heads > 2**27
    times = time_side_by_side(impls, rounds=3, block=1 if slow else 3, pause=0.0)
    return {"n": n, **{name: times[name]["best"] for name in impls}}


def speed(results: dict):
    print("2. Speed, d_model 512, 8 heads, causal, output to the host (best of 3 rounds)")
    rows = results["speed"] = []
    for n in CHECK_NS:
        row = side_by_side(n, 512, 8, {"output"})
        rows.append(row)
        print(
            f"   n = {n:5d}: numpy {fmt_seconds(row['numpy'])}, cupy {fmt_seconds(row['cupy'])},"
            f" GPU {row['numpy'] / row['cupy']:.1f}x faster"
        )


def crossover(results: dict):
    print("3. Where the GPU starts to win")
    results["crossover"] = {}
    for label, (d_model, heads, keep) in LAYERS.items():
        rows = [side_by_side(n, d_model, heads, keep) for n in SWEEP_NS]
        wins = [row["cupy"] < row["numpy"] for row in rows]
        from_n = next((row["n"] for i, row in enumerate(rows) if all(wins[i:])), None)
        results["crossover"][label] = {"rows": rows, "gpu_from_n": from_n}
        print(f"   {label}: GPU faster from n = {from_n}")
        for row in rows:
            print(
                f"     n = {row['n']:5d}: numpy {fmt_seconds(row['numpy'])},"
                f" cupy {fmt_seconds(row['cupy'])}, ratio {row['numpy'] / row['cupy']:6.2f}"
            )


def cost_page(results: dict):
    from measure.cost import GPU_COST_NS, measure_cost

    print("4. The cost page's measurement on both backends (d_model 512, 8 heads)")
    use(None)
    ns = GPU_COST_NS[:3] if DRY_RUN else GPU_COST_NS
    started = time.perf_counter()
    measured = measure_cost(ns, 512, 8)
    results["cost_page"] = {**measured, "seconds": time.perf_counter() - started}
    for i, n in enumerate(measured["n"]):
        print(
            f"   n = {n:5d}: numpy {fmt_seconds(measured['attention'][i])},"
            f" gpu {fmt_seconds(measured['gpu'][i])}"
        )
    print(f"   the whole measurement took {results['cost_page']['seconds']:.1f} s")


def automatic(results: dict):
    print(f"5. The automatic choice (GPU from n = {core.GPU_FROM_N}), app default layer")
    rows = results["automatic"] = []
    d_model, heads, keep = LAYERS["app default (d_model 8, 2 heads, full trace)"]
    for n in SWEEP_NS:
        use(None)
        chosen = core.active_backend(n).name
        impls = {name: placed(name, n, d_model, heads, keep) for name in ("numpy", GPU)}
        impls["automatic"] = placed(None, n, d_model, heads, keep)
        slow = n * n * heads > 2**27
        times = time_side_by_side(impls, rounds=3, block=1 if slow else 3, pause=0.0)
        best = {name: times[name]["best"] for name in impls}
        fastest = min(best["numpy"], best[GPU])
        rows.append({"n": n, "chosen": chosen, **best})
        print(
            f"   n = {n:5d}: chose {chosen:5s} {fmt_seconds(best['automatic'])},"
            f" {best['automatic'] / fastest:5.2f}x the faster backend's time"
        )


def main():
    results = {
        "date": datetime.date.today().isoformat(),
        "cpu_cores": os.cpu_count(),
        "numpy": np.__version__,
        "machine": platform.machine(),
    }
    if not DRY_RUN:
        import cupy

        name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
        results["device"] = name.decode() if isinstance(name, bytes) else str(name)
        results["cupy"] = cupy.__version__
        print(f"{results['device']}, CuPy {cupy.__version__}, NumPy {np.__version__}")
    for step in (agreement, speed, crossover, cost_page, automatic):
        step(results)
    paths = [arg for arg in sys.argv[1:] if not arg.startswith("--")]
    if paths:
        Path(paths[0]).write_text(json.dumps(without_nan(results), indent=1) + "\n")


def without_nan(value):
    """JSON has no NaN: a measurement that was skipped becomes null."""
    if isinstance(value, dict):
        return {key: without_nan(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [without_nan(item) for item in value]
    return None if isinstance(value, float) and value != value else value


if __name__ == "__main__":
    main()
