"""The attention maps over training: every head of every layer on the fixed sequence at the step a
slider picks, and one head's map at steps side by side (the last layer's best induction head on
repeat, else layer 1's best previous-token head)."""

import numpy as np
import streamlit as st

from ui.figures.place import plot_for_screens
from ui.figures.tiles import head_tiles
from ui.kit.i18n import t
from ui.views.train.curves import head_name

STRIP = 6  # maps side by side in the strip


def _strip_steps(steps: list[int]) -> list[int]:
    """Up to STRIP snapshot steps from the first to the last, as evenly spread as they fall."""
    picks = np.unique(np.round(np.linspace(0, len(steps) - 1, min(STRIP, len(steps)))).astype(int))
    return [steps[i] for i in picks]


def _best_head(last: dict) -> tuple[int, int]:
    """(layer, head) from 0: the last layer's best induction head, else layer 1's best
    previous-token head, by their scores at the last snapshot."""
    if last["induction"] is not None:
        scores = np.asarray(last["induction"])
        return scores.shape[0] - 1, int(np.argmax(scores[-1]))
    return 0, int(np.argmax(np.asarray(last["previous"])[0]))


def section(snapshots: list, base: int) -> None:
    st.caption(t("train.maps_text"))
    by_step = {s["step"]: s for s in snapshots}
    steps = list(by_step)
    step = st.select_slider(t("train.at_step"), steps, value=steps[-1], key="tr_snapshot")
    A = by_step[step]["attention"]  # [layers, heads, n, n]
    layers = [t("train.layer", layer=i + base) for i in range(A.shape[0])]
    heads = [t("train.head", head=j + base) for j in range(A.shape[1])]
    n, title = A.shape[-1], t("train.tiles_title", step=step)
    maps = [list(row) for row in A]

    def tiles(px: int):
        return head_tiles(maps, layers, heads, title, False, side=n, tile_px=px)

    plot_for_screens(tiles(150), lambda: tiles(80), "tr_tiles")  # square on each screen
    layer, head = _best_head(snapshots[-1])
    shown = _strip_steps(steps)
    strip_maps = [[by_step[s]["attention"][layer, head] for s in shown]]
    strip_title = t("train.strip_title", head=head_name(layer, head, base))

    def strip(px: int):
        return head_tiles(strip_maps, [""], [str(s) for s in shown], strip_title, False, side=n,
                          tile_px=px)  # fmt: skip

    plot_for_screens(strip(130), lambda: strip(55), "tr_strip")
