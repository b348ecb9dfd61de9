"""The decoder's work for the generate page, done once per process and shared by every session:
the model (loaded on the first visit), the prompt's pass, and each written step, which extends the
step before it through the K/V cache. A rerun of a view already computed runs no model at all.

Every piece of work is keyed by the model's name beside its ids (the same ids are different pieces
in Gemma and SmolLM2). Every step and every next-token distribution is built once, however many
sessions ask for it at the same moment (ui/kit/shared_cache.py: the first builds it, the others
wait for it), so a class writing the same prompt with the same settings and seed costs one
generation. Each pass waits its turn at the models (ui/work/model_turns.py). The one-token steps
that sessions ask for together go out in one pass (scheduling/batches.py: the weights are read once
for up to 32 tokens), so a Play's token and another learner's Next share a pass, and neither
waits longer than the pass before.
"""

import threading
from dataclasses import dataclass
from functools import partial

import numpy as np
import streamlit as st

from core.lessons.sampling import Candidates, NextToken, candidates, next_token, pick
from core.softmax import softmax_rows
from scheduling.ahead import Ahead
from scheduling.batches import Batcher
from ui.kit.shared_cache import shared
from ui.work import model_load
from ui.work.model_turns import TURNS

MAX_PROMPT_CHARS = 2000
MAX_PROMPT_PIECES = 256  # every layer's whole attention map is kept for the page: 18 × 4 × n × n
MAX_WRITTEN = 32  # tokens the page writes after the prompt
TRAINING_ROWS = 24  # positions compared between the training pass and one-at-a-time decoding


@st.cache_resource(show_spinner=False)
def decoder(name: str):
    """The decoder ``name``, once per process (InputError "model_missing" when it is not
    installed): the load begun in the background (ui/work/model_load.py), or one made now."""
    return model_load.model(name)


@dataclass(frozen=True)
class Step:
    """The sequence so far and what the model says at its last position."""

    ids: tuple  # <bos>, the prompt's pieces, and what was written
    logits: np.ndarray  # [vocab] the next token's scores
    A: tuple  # per layer [h, t]: the last query's weights over every key
    cache: object  # core.pretrained.gemma.KVCache of every position


@dataclass(frozen=True)
class Prompt:
    """The prompt's one pass: every layer's A [h, n, n], and the training-versus-decoding rows."""

    step: Step
    A: tuple  # per layer [h, n, n]
    target_p: np.ndarray  # [rows] each position's probability of the true next piece, one pass
    target_p_cached: np.ndarray  # [rows] the same, one position at a time with the cache
    max_diff: float  # the largest |logit| difference between the two, over those rows


KEEP_STEPS = 256  # steps kept: each holds its logits (1 MB) and K/V cache (37 kB a position)


def _from_trace(ids: tuple, trace) -> Step:
    """The trace's last position, copied out: a view would keep the pass's whole logits (a batch's,
    or a prompt's [n, vocab]) for as long as the step is kept."""
    A = tuple(np.array(A[:, -1]) for A in trace.A)
    return Step(ids, np.array(trace.logits[-1]), A, trace.cache)


def _steps(name: str, items: list) -> list:
    """Many sessions' next tokens, each after its own kept step, in one pass of model ``name``."""
    return decoder(name).steps([token for token, _ in items], [cache for _, cache in items])


# the tokens asked for together go out together, one batch per model (a cache is one model's)
ONE_TOKEN: dict[str, Batcher] = {}
_batchers = threading.Lock()


def _batcher(name: str) -> Batcher:
    with _batchers:
        if name not in ONE_TOKEN:
            ONE_TOKEN[name] = Batcher(partial(_steps, name), TURNS, most=32)
        return ONE_TOKEN[name]


@shared(max_entries=KEEP_STEPS)  # (its passes take their turns: the batch's, or their own)
def _step(name: str, ids: tuple, start: int) -> Step:
    if len(ids) <= start:  # the prompt: one pass, its last row through the head (as
        with TURNS.turn():  # _prompt_for_writing's: the same logits, however it was built)
            return _from_trace(ids, decoder(name).forward(list(ids), rows=1, A_rows=1))
    before = _step(name, ids[:-1], start)  # kept, or built again the same way
    return _from_trace(ids, _batcher(name)((ids[-1], before.cache)))  # one token, cached K/V


def step_of(model, ids: tuple, start: int) -> Step:
    """The step for ``ids``, whose first ``start`` are the prompt: the prompt's one pass, then
    one token at a time through the K/V cache, each step built once however many sessions ask
    at once and kept a while. A step asked for again after it was dropped is built again the
    same way (from the prompt's pass, a token at a time), not by one pass over the whole
    sequence, whose different sums drew another token in a busy class's bench. (A token batched
    with others still rounds a little differently from one alone, logits within 2e-4: the
    bench's 60 students saw one sampled token in 20 Plays of 32 differ.)"""
    return _step(model.name, tuple(ids), int(start))


def _target_p(logits: np.ndarray, target: int) -> float:
    """softmax(logits)[target], in float64, for one row: a row at a time, so the prompt's 24 rows
    never stand as [24, 262 144] float64 arrays (about 250 MB of copies in the first class)."""
    return float(softmax_rows(logits.astype(np.float64))[target])


@shared(max_entries=16, turns=TURNS)
def _prompt_for_writing(name: str, ids: tuple) -> Prompt:
    """The heads' logits (the tied embedding, 262 144 × 640: 671 MB read per product) are taken
    once for the rows compared, not once per pass: the prompt's pass keeps its last row's logits
    only (each row is 1 MB), and the one-position-at-a-time passes keep their last residual row,
    read through the head together after: a 23-piece prompt's work 1.31 -> 0.91 s alone (in a
    class, while /generate and /inside waited for its turn, it had taken up to 2.4 s)."""
    model = decoder(name)
    whole = model.forward(list(ids), residuals=True, rows=1)
    step = _step.put(_from_trace(ids, whole), name, ids, len(ids))
    rows = min(TRAINING_ROWS, len(ids) - 1)
    one, last_rows = None, []
    for i in range(rows):
        one = model.forward([ids[i]], None if one is None else one.cache, residuals=True, rows=0)
        last_rows.append(one.H[-1][-1])
    target_p, target_p_cached, max_diff = [], [], 0.0
    if rows:
        pass_logits = model.lens(whole.H[-1][:rows])  # [rows, vocab]
        cached_logits = model.lens(np.stack(last_rows))  # [rows, vocab]
        for i in range(rows):
            target_p.append(_target_p(pass_logits[i], ids[i + 1]))
            target_p_cached.append(_target_p(cached_logits[i], ids[i + 1]))
            diff = np.abs(cached_logits[i].astype(np.float64) - pass_logits[i]).max()
            max_diff = max(max_diff, float(diff))
    return Prompt(
        step, tuple(whole.A), np.array(target_p), np.array(target_p_cached), max_diff
    )  # fmt: skip


def prompt_for_writing(model, ids: tuple) -> Prompt:
    """One causal pass over the prompt, and its first rows again one position at a time."""
    return _prompt_for_writing(model.name, tuple(ids))


@dataclass(frozen=True)
class Rules:
    """How the next token is chosen (the page's controls, in the URL)."""

    temperature: float
    top_k: int
    top_p: float
    sample: bool
    seed: int

    @property
    def shape(self) -> tuple:
        """What shapes the distribution (T, top-k, top-p); the mode and the seed only pick from
        it, so students sampling with their own seeds share each distribution they meet."""
        return (self.temperature, self.top_k, self.top_p)


KEEP_DISTRIBUTIONS = 8  # each holds six arrays of 262 144 numbers (about 9 MB): a pick's, a while
KEEP_CANDIDATES = 4096  # the bars' few numbers each: every step a class is looking at
KEEP_WRITINGS = 4096  # a few ints each: every (prompt, rules, count) a class has written
SHOWN = 10  # candidates the bars show


@shared(max_entries=KEEP_DISTRIBUTIONS)
def _distribution(name: str, ids: tuple, start: int, shape: tuple) -> NextToken:
    return next_token(_step(name, ids, start).logits, *shape)


def distribution_at(model, ids: tuple, start: int, rules: Rules) -> NextToken:
    """The next token's whole distribution after ``ids`` (the first ``start`` the prompt) under
    ``rules``, kept a short while: what a pick draws from (its 262 144 probabilities cost a
    few ms to make, and 9 MB to keep)."""
    return _distribution(model.name, tuple(ids), int(start), rules.shape)


@shared(max_entries=KEEP_CANDIDATES)
def _candidates(name: str, ids: tuple, start: int, shape: tuple) -> Candidates:
    return candidates(_distribution(name, ids, start, shape), SHOWN)


def candidates_at(model, ids: tuple, start: int, rules: Rules) -> Candidates:
    """The SHOWN most likely next tokens after ``ids`` under ``rules``, and their numbers: what
    the bars draw, kept for every step a class is on (a rerun makes no distribution again)."""
    return _candidates(model.name, tuple(ids), int(start), rules.shape)


@dataclass(frozen=True)
class Writing:
    """What the rules wrote after a prompt: the tokens, each one's probability q when it was
    drawn, and the random generator's state after the last draw (None when greedy)."""

    tokens: tuple
    q: tuple
    state: dict | None


@shared(max_entries=KEEP_WRITINGS)
def _writing(name: str, prompt: tuple, rules: Rules, count: int) -> Writing:
    if count == 0:
        rng = np.random.default_rng(rules.seed) if rules.sample else None
        return Writing((), (), rng.bit_generator.state if rng else None)
    before = _writing(name, prompt, rules, count - 1)  # one token after the writing before it
    dist = _distribution(name, (*prompt, *before.tokens), len(prompt), rules.shape)
    rng = None
    if rules.sample:
        rng = np.random.default_rng()
        rng.bit_generator.state = before.state
    token = pick(dist, rng)
    state = rng.bit_generator.state if rng else None
    return Writing((*before.tokens, token), (*before.q, float(dist.q[token])), state)


AHEAD = Ahead(workers=32)  # as many as a batch takes, so that their passes go out together


def read_ahead(model, prompt_ids: tuple, rules: Rules, count: int) -> None:
    """After ``count`` tokens were drawn: the next Next's work, in the background (the token, its
    step and its bars, and the token after it, which needs no pass), so that the press, or a
    Play's next tick, finds it done and each whole distribution is made once. One such job waits
    per session (scheduling/ahead.py); none past MAX_WRITTEN."""
    if count >= MAX_WRITTEN:
        return
    prompt_ids, count = tuple(prompt_ids), int(count)

    def job() -> None:
        chosen = written(model, prompt_ids, rules, count + 1)  # the token (a kept distribution's)
        candidates_at(model, (*prompt_ids, *chosen.tokens), len(prompt_ids), rules)  # its bars
        if count + 2 <= MAX_WRITTEN:  # and the pick after it, while its distribution is kept
            written(model, prompt_ids, rules, count + 2)

    AHEAD.submit(TURNS.who(), job)


def written(model, prompt_ids: tuple, rules: Rules, count: int) -> Writing:
    """``count`` tokens written after the prompt. The same rules and seed write the same text:
    one generator seeded once, drawing once per token, its state carried from each writing to
    the next (kept, so a rerun draws nothing again)."""
    return _writing(model.name, tuple(prompt_ids), rules, int(count))
