"""The inside page's model work, done once per process for each model and prompt, set of heads
switched off or repeated sequence, and shared by every session (ui/kit/shared_cache.py: one
computation per key even when a class asks at once, the others waiting for it). A rerun that
changes only the view (a layer, a head, the sort) runs no model at all."""

from dataclasses import dataclass

import numpy as np

from core.lessons import model_reading
from ui.kit.shared_cache import shared
from ui.work.decoding import decoder
from ui.work.model_turns import TURNS

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
def _stream_pass(name: str, ids: tuple, off: frozenset):
    """Kept with its last position's logits only, the one row the page reads: the whole [n,
    vocab] is 1 MB a piece, for as long as the pass is kept."""
    return decoder(name).forward(ids, residuals=True, off=off, rows=1)


@shared(max_entries=KEEP, turns=TURNS)
def _lens(name: str, ids: tuple, off: frozenset, answer: int | None) -> model_reading.Lens:
    return model_reading.logit_lens(decoder(name), _stream_pass(name, ids, off).H, answer=answer)


@shared(max_entries=KEEP, turns=TURNS)
def _parts(name: str, ids: tuple) -> model_reading.ResidualParts:
    run, lens = _stream_pass(name, ids, frozenset()), _lens(name, ids, frozenset(), None)
    return model_reading.residual_parts(decoder(name), run, lens.answer)


@shared(max_entries=KEEP, turns=TURNS)
def _repeat(name: str, seed: int, off: frozenset) -> Repeat:
    model = decoder(name)
    ids = model_reading.repeated_tokens(model, seed)
    run = model.forward(ids, off=off, residuals=True, rows=0)  # the loss reads H[-1] in parts
    loss = model_reading.losses_of(model, run.H[-1], ids)
    return Repeat(ids, run.A, loss, *model_reading.copy_halves(loss))


@shared(max_entries=KEEP)
def _scores(name: str, ids: tuple, seed: int | None) -> dict:
    if seed is None:
        return model_reading.head_scores(_stream_pass(name, ids, frozenset()).A, ids)
    repeat = _repeat(name, seed, frozenset())
    return model_reading.head_scores(repeat.A, repeat.ids)


MODEL_WORK = (_stream_pass, _lens, _parts, _repeat)  # each build one turn at the model


def stream_pass(model, ids, off=frozenset()):
    """The prompt's pass with its residual stream (``off``: heads switched off)."""
    return _stream_pass(model.name, tuple(ids), frozenset(off))


def lens_of(model, ids, off=frozenset(), answer: int | None = None) -> model_reading.Lens:
    """The logit lens of the prompt's pass (``answer``: whose rank to follow, default its own)."""
    return _lens(model.name, tuple(ids), frozenset(off), answer)


def parts_of(model, ids) -> model_reading.ResidualParts:
    return _parts(model.name, tuple(ids))


def repeat_of(model, seed: int, off=frozenset()) -> Repeat:
    return _repeat(model.name, int(seed), frozenset(off))


def scores_of(model, ids, seed: int | None) -> dict:
    """Each head's scores on the prompt ``ids`` (``seed`` None) or on the repeated sequence."""
    return _scores(model.name, tuple(ids) if seed is None else (), seed)
