"""The inside page's model work, done once per process for each prompt, set of heads switched off
or repeated sequence, and shared by every session (ui/kit/shared_cache.py: one computation per
key even when a class asks at once, the others waiting for it). A rerun that changes only the
view (a layer, a head, the sort) runs no model at all."""

from dataclasses import dataclass

import numpy as np

from core.lessons import inside
from ui.kit.decoding import decoder
from ui.kit.model_turns import TURNS
from ui.kit.shared_cache import shared

KEEP = 16  # entries kept per kind


@dataclass(frozen=True)
class Repeat:
    """<bos> + random pieces + the same again: its pass, each position's loss, the two halves."""

    ids: tuple
    A: list  # per layer [h, n, n]
    loss: np.ndarray  # [n − 1] nats
    first: float  # mean loss on the first copy
    second: float  # ... and on the second


@shared(max_entries=KEEP, turns=TURNS)
def _prompt_pass(ids: tuple, off: frozenset):
    """Kept with its last position's logits only, the one row the page reads: the whole [n,
    vocab] is 1 MB a piece, for as long as the pass is kept."""
    return decoder().forward(ids, residuals=True, off=off, rows=1)


@shared(max_entries=KEEP, turns=TURNS)
def _lens(ids: tuple, off: frozenset, answer: int | None) -> inside.Lens:
    return inside.logit_lens(decoder(), _prompt_pass(ids, off).H, answer=answer)


@shared(max_entries=KEEP, turns=TURNS)
def _parts(ids: tuple) -> inside.ResidualParts:
    return inside.residual_parts(decoder(), prompt_pass(ids), lens_of(ids).answer)


@shared(max_entries=KEEP, turns=TURNS)
def _repeat(seed: int, off: frozenset) -> Repeat:
    model = decoder()
    ids = inside.repeated_tokens(model, seed)
    run = model.forward(ids, off=off, residuals=True, rows=0)  # the loss reads H[-1] in parts
    loss = inside.losses_of(model, run.H[-1], ids)
    return Repeat(ids, run.A, loss, *inside.copy_halves(loss))


@shared(max_entries=KEEP)
def _scores(ids: tuple, seed: int | None) -> dict:
    A = prompt_pass(ids).A if seed is None else repeat_of(seed).A
    return inside.head_scores(A, ids if seed is None else repeat_of(seed).ids)


MODEL_WORK = (_prompt_pass, _lens, _parts, _repeat)  # each build one turn at the model


def prompt_pass(ids, off=frozenset()):
    """The prompt's pass with its residual stream (``off``: heads switched off)."""
    return _prompt_pass(tuple(ids), frozenset(off))


def lens_of(ids, off=frozenset(), answer: int | None = None) -> inside.Lens:
    """The logit lens of the prompt's pass (``answer``: whose rank to follow, default its own)."""
    return _lens(tuple(ids), frozenset(off), answer)


def parts_of(ids) -> inside.ResidualParts:
    return _parts(tuple(ids))


def repeat_of(seed: int, off=frozenset()) -> Repeat:
    return _repeat(int(seed), frozenset(off))


def scores_of(ids, seed: int | None) -> dict:
    """Each head's scores on the prompt ``ids`` (``seed`` None) or on the repeated sequence."""
    return _scores(tuple(ids) if seed is None else (), seed)
