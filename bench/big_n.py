"""Big n: the memory of the view the walkthrough draws, and the size of the heatmap it sends.

The view keeps one head's A and the output (d_model 512, 8 heads, float32, causal), as the app
does for a long sentence; its peak is measured with tracemalloc next to what the full trace of
every head would hold. The payload is the JSON of that head's heatmap (block-averaged to at most
MAX_SIDE cells a side, masked cells and row sums included).
Targets: the view at n = 4096 under 500 MB; the payload under 1 MB at any n.
Run: python bench/big_n.py
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import core  # noqa: E402
from measure import timing
from ui.figures.heatmaps import heatmap  # noqa: E402

D_MODEL, HEADS = 512, 8


def main():
    print(f"backend: {core.active_backend()}")
    print(f"{'n':>6} {'view peak':>10} {'full trace':>11} {'seconds':>8} {'payload':>9}")
    config = core.AttentionConfig(d_model=D_MODEL, n_heads=HEADS, dtype="float32")
    W = core.init_weights(config)
    peaks, payloads = {}, {}
    for n in (512, 2048, 4096, 8192):
        X = core.embed([f"t{i}" for i in range(n)], D_MODEL, dtype="float32")
        mask = core.causal_mask(n)
        started = time.perf_counter()
        peak = timing.peak_bytes(
            lambda X=X, mask=mask: core.attention(
                X, W, HEADS, mask, keep={"A", "output"}, heads=[0]
            )
        )
        seconds = time.perf_counter() - started
        A = core.to_numpy(core.attention(X, W, HEADS, mask, keep={"A"}, heads=[0]).A)[0]
        tokens = [f"t{i}" for i in range(n)]
        forbidden = ~core.to_numpy(mask)
        notes = [f"Σ = {total:.2f}" for total in A.sum(axis=1)]
        payload = heatmap(
            A, tokens, tokens, scale="unit", forbidden=forbidden, row_notes=notes
        ).to_json()
        full = 4 * HEADS * n * n * 4  # S, S/√d_k, masked and A of every head
        print(
            f"{n:>6} {peak / 2**20:>8.0f}MB {full / 2**20:>9.0f}MB {seconds:>8.2f}"
            f" {len(payload.encode()) / 2**20:>7.2f}MB"
        )
        peaks[n], payloads[n] = peak, len(payload.encode())
    largest = max(payloads.values())
    print(
        f"view at n = 4096: {peaks[4096] / 2**20:.0f} MB -> under 500 MB"
        f" {'met' if peaks[4096] < 500 * 2**20 else 'MISSED'}; largest payload"
        f" {largest / 2**20:.2f} MB -> under 1 MB {'met' if largest < 2**20 else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
