"""The numbers printed on the walkthrough's heatmaps (issue 64, contrast): how many read under 4.5:1
against their own cell, and the lowest ratio, with Plotly's old text colours (no colour set:
plotly.js's Color.contrast, #444 on a cell whose YIQ brightness is 128 or more, else white; −∞
in #555 on the masked grey) beside the colours the figures print now (black, or white on a dark
cell; −∞ in dark grey).

The charts are every step's heatmaps, built as ui/views/walkthrough/step_charts.py builds them
(both heads; the weights' expanders; the block's H, N, F, Y), for each language's default
sentence with the sidebar's defaults, without a mask and with the causal one. Each label's cell
and text colour are read off the figure as the browser stacks its traces
(tests/ui/test_figure_contrast.py's ``printed_labels``).

Run: python bench/figure_contrast.py
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.ui.test_figure_contrast import old_ink, printed_labels, ratio, to_rgb  # noqa: E402
from ui.figures.heatmaps import A_heatmap, heatmap, mask_heatmap  # noqa: E402
from ui.kit.i18n import DEFAULT_SENTENCE  # noqa: E402
from ui.kit.number_text import indices  # noqa: E402
from ui.kit.settings import Settings  # noqa: E402
from ui.views.walkthrough.block import PANELS, block_of  # noqa: E402
from ui.work.traces import TraceKey, sentence_trace  # noqa: E402

MASKED_TEXT = to_rgb("#555555")  # the masked cells' text before


def walkthrough_heatmaps(data, settings):
    """(step, figure) for every heatmap the walkthrough draws of ``data`` (base 1)."""
    tokens, decimals, base = list(data.tokens), settings.decimals, 1
    tr, n = data.trace, data.n
    by_token = {"decimals": decimals}
    by_pair = {"decimals": decimals, "square": True}
    dims = indices(data.E.shape[1], base)
    forbidden = None if data.mask is None else ~data.mask
    yield "E", heatmap(data.E, tokens, dims, title="E", **by_token)
    if data.PE is not None:
        yield "PE", heatmap(data.PE, tokens, dims, title="PE", **by_token)
    yield "X", heatmap(tr.X, tokens, dims, title="X", **by_token)
    for head in range(tr.Q.shape[0]):
        bound = float(max(np.abs(getattr(tr, name)[head]).max() for name in "QKV"))
        for name in "QKV":
            M = getattr(tr, name)[head]
            yield name, heatmap(M, tokens, indices(M.shape[1], base), title=name, bound=bound,
                                focus_row=0, **by_token)  # fmt: skip
            width = data.d_v if name == "V" else data.d_k
            W = getattr(data.W, f"W_{name}")[:, head * width : (head + 1) * width]
            yield f"W_{name}", heatmap(W, dims, indices(width, base), title=f"W_{name}",
                                       decimals=decimals)  # fmt: skip
        S = tr.S[head]
        yield "S", heatmap(S, tokens, tokens, title="S", **by_pair)
        bound = float(np.abs(S).max())
        yield "S/√d_k", heatmap(tr.S_scaled[head], tokens, tokens, title="S", bound=bound,
                                **by_pair)  # fmt: skip
        yield "masked S", heatmap(tr.S_masked[head], tokens, tokens, title="S",
                                  forbidden=forbidden, **by_pair)  # fmt: skip
        yield "A", A_heatmap(tr.A[head], tokens, title="A", forbidden=forbidden, **by_pair)
        O = tr.O[head]
        yield "O", heatmap(O, tokens, indices(O.shape[1], base), title="O", **by_token)
    allowed = np.ones((n, n), bool) if data.mask is None else np.asarray(data.mask, bool)
    yield "M", mask_heatmap(allowed, tokens, tokens, title="M", legend=("1", "0"))
    concat = [f"h{j // data.d_v + base}·{j % data.d_v + base}" for j in range(tr.concat.shape[1])]
    yield "concat", heatmap(tr.concat, tokens, concat, title="concat", **by_token)
    yield "output", heatmap(tr.output, tokens, dims, title="output", **by_token)
    yield "W_O", heatmap(data.W.W_O, concat, dims, title="W_O", decimals=decimals)
    out = block_of(data, settings.seed)
    bound = float(max(np.abs(getattr(out, name)).max() for name in PANELS))
    for name in PANELS:
        yield name, heatmap(getattr(out, name), tokens, dims, title=name, bound=bound, **by_token)


def ratios(fig) -> tuple[list, list]:
    """Each printed label's contrast with Plotly's old colours, and with the figure's own."""
    old, new = [], []
    for _, ink, cell, k in printed_labels(fig).values():
        flat = len({colour for _, colour in fig.data[k].colorscale}) == 1  # the masked overlay
        old.append(ratio(MASKED_TEXT if flat else old_ink(cell), cell))
        new.append(ratio(ink, cell))
    return old, new


def line(name: str, old: list, new: list) -> str:
    weak = lambda r: sum(x < 4.5 for x in r)  # noqa: E731
    return (f"{name:<20} {len(old):>6}   {weak(old):>5} {min(old):>7.2f}   "
            f"{weak(new):>5} {min(new):>7.2f}")  # fmt: skip


def main() -> None:
    settings = Settings()
    print("labels under 4.5:1 and the lowest ratio: Plotly's old colours | the figures' own now")
    print("sentences:", " | ".join(DEFAULT_SENTENCE.values()))
    print(f"{'charts':<20} {'labels':>6}   {'old<':>5} {'lowest':>7}   {'new<':>5} {'lowest':>7}")
    by_step: dict = {}  # over the four sentences and masks
    for lang, sentence in DEFAULT_SENTENCE.items():
        for mask in ("none", "causal"):
            key = TraceKey(sentence, settings.mode, settings.d_model, settings.n_heads,
                           settings.seed, settings.positional, mask)  # fmt: skip
            run = ([], [])
            for step, fig in walkthrough_heatmaps(sentence_trace(key), settings):
                old, new = ratios(fig)
                for into in (run, by_step.setdefault(step, ([], []))):
                    into[0].extend(old)
                    into[1].extend(new)
            print(line(f"{lang}, mask {mask}", *run))
    for step, (old, new) in by_step.items():
        print(line(f"    {step}", old, new))
    print(line("all", [r for o, _ in by_step.values() for r in o],
               [r for _, n in by_step.values() for r in n]))  # fmt: skip


if __name__ == "__main__":
    main()
