"""Hostile lines for core.practice.check: the error code each gets, the time to refuse it and the
memory the refusal takes, next to a right answer's check.

Time: the median of 5 calls per line, the lines measured side by side (measure/timing.py: blocks
of calls, the order reversed each round). Memory: the tracemalloc peak of one call (KiB), which
includes the names the check gathers from the trace (the same for every line).
The hostile lines are the issue's: __import__, ().__class__.__bases__, X.__class__, np.load,
np.ones(10**10), 9**9**9, 10,000 nested parentheses, lambdas, comprehensions, f-strings, attribute
chains, and a line of 10 MB.
Run: python bench/practice_hostile.py
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import core  # noqa: E402
from core.practice import check  # noqa: E402
from measure import timing  # noqa: E402

N, D_MODEL, HEADS = 6, 8, 2
MB10 = 10_000_000

LINES = [  # (label, step, line)
    ("right: S = Q @ K.T", "S", "Q @ K.T"),
    ("right: A = softmax(S_masked, axis=-1)", "A", "softmax(S_masked, axis=-1)"),
    ("__import__('os')", "S", "__import__('os')"),
    ("__import__('os').system('true')", "S", "__import__('os').system('true')"),
    ("().__class__.__bases__", "S", "().__class__.__bases__"),
    ("X.__class__", "S", "X.__class__"),
    ("np.load('x')", "S", "np.load('x')"),
    ("np.ones(10**10)", "S", "np.ones(10**10)"),
    ("9**9**9", "S", "9**9**9"),
    ("10**10**10", "S", "10**10**10"),
    ("10,000 nested ( )", "S", "(" * 10_000 + "X" + ")" * 10_000),
    ("24 nested ( ) (the limit)", "S", "(" * 24 + "X" + ")" * 24),
    ("lambda: __import__('os')", "S", "lambda: __import__('os')"),
    ("(lambda x: x)(X)", "S", "(lambda x: x)(X)"),
    ("[x for x in X]", "S", "[x for x in X]"),
    ("(x for x in X)", "S", "(x for x in X)"),
    ("f'{X.__class__}'", "S", "f'{X.__class__}'"),
    ("Q.T.T.T.T.__class__", "S", "Q.T.T.T.T.__class__"),
    ("X.T x 40 (a long chain)", "S", "X" + ".T" * 40),
    ("softmax.__globals__", "S", "softmax.__globals__"),
    ("10 MB line", "S", "x" * MB10),
    ("10 MB line, then a newline", "S", "x" * MB10 + "\n"),
    ("10 MB of (", "S", "(" * MB10),
]


def main():
    W = core.init_weights(core.AttentionConfig(d_model=D_MODEL, n_heads=HEADS))
    X = core.embed("the cat sat on a mat".split(), D_MODEL, seed=0)
    trace = core.attention(X, W, HEADS, mask=core.causal_mask(N))

    def call(step, line):
        return lambda: check(step, line, trace, head=0, weights=W)

    calls = {label: call(step, line) for label, step, line in LINES}
    times = timing.time_side_by_side(calls, rounds=5, block=1, pause=0.05)
    python = sys.version.split()[0]
    print(f"trace: n = {N}, d_model = {D_MODEL}, {HEADS} heads, causal; Python {python}")
    print(f"{'line':<40} {'verdict':<24} {'median ms':>10} {'peak KiB':>9}")
    for label in calls:
        verdict = calls[label]()
        outcome = "ok" if verdict.ok else (verdict.error or verdict.mistake or "wrong")
        peak = timing.peak_bytes(calls[label]) / 1024
        ms = times[label]["median"] * 1000
        print(f"{label:<40} {outcome:<24} {ms:>10.3f} {peak:>9.1f}")


if __name__ == "__main__":
    main()
