"""The inside page's model work, done once per process for each prompt, set of heads switched off
or repeated sequence, and shared by every session (Streamlit's resource cache, one computation per
key even when a class asks at once). A rerun that changes only the view (a layer, a head, the
sort) runs no model at all."""

from dataclasses import dataclass

import numpy as np
import streamlit as st

from core.lessons import inside
from ui.kit.decoding import decoder

KEEP = 16  # passes kept per kind


@st.cache_resource(max_entries=KEEP, show_spinner=False)
def prompt_pass(ids: tuple, off: frozenset = frozenset()):
    """The prompt's pass with its residual stream (``off``: heads switched off)."""
    return decoder().forward(ids, residuals=True, off=off)


@st.cache_resource(max_entries=KEEP, show_spinner=False)
def lens_of(ids: tuple, off: frozenset = frozenset(), answer: int | None = None) -> inside.Lens:
    """The logit lens of the prompt's pass (``answer``: whose rank to follow, default its own)."""
    return inside.logit_lens(decoder(), prompt_pass(ids, off).H, answer=answer)


@st.cache_resource(max_entries=KEEP, show_spinner=False)
def parts_of(ids: tuple) -> inside.ResidualParts:
    return inside.residual_parts(decoder(), prompt_pass(ids), lens_of(ids).answer)


@dataclass(frozen=True)
class Repeat:
    """<bos> + random pieces + the same again: its pass, each position's loss, the two halves."""

    ids: tuple
    A: list  # per layer [h, n, n]
    loss: np.ndarray  # [n − 1] nats
    first: float  # mean loss on the first copy
    second: float  # ... and on the second


@st.cache_resource(max_entries=KEEP, show_spinner=False)
def repeat_of(seed: int, off: frozenset = frozenset()) -> Repeat:
    model = decoder()
    ids = inside.repeated_tokens(model, seed)
    run = model.forward(ids, off=off)
    loss = inside.losses(run.logits, ids)
    return Repeat(ids, run.A, loss, *inside.copy_halves(loss))


@st.cache_resource(max_entries=KEEP, show_spinner=False)
def scores_of(ids: tuple, seed: int | None) -> dict:
    """Each head's scores on the prompt ``ids`` (``seed`` None) or on the repeated sequence."""
    A = prompt_pass(ids).A if seed is None else repeat_of(seed).A
    return inside.head_scores(A, ids if seed is None else repeat_of(seed).ids)
