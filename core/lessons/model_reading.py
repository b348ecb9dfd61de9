"""Inside the trained decoder (the inside page): which layer knows the answer (the logit lens),
the residual stream as a sum of what each layer added, what each attention head does (its
previous-token, induction, <bos>-sink and local scores), and the loss on a random sequence
repeated, where heads that copy make the second copy easy.

Every function takes a model with Gemma's interface (core/pretrained/gemma.py: ``forward(ids,
residuals=, off=)``, ``lens(h)``, ``E``, ``final_norm``) and its traces; positions, layers and heads
count from 0 here, as in code.
"""

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from core.backend import to_numpy
from core.lessons.number_text import printed_sum
from core.pretrained.bpe import NORMAL

TOP = 5  # pieces shown per layer
MAP_POSITIONS = 6  # the lens map's last positions: each of its 19 rows reads the whole vocabulary
# (6 keep the page under 1.5 s: 114 rows through the 262 144-piece head take about 0.6 s here)
LENS_ROWS = 32  # rows read through the head at once: [32, 262 144] float32 is 34 MB
REPEAT_LENGTH = 40  # random tokens, then the same again
LOCAL = 4  # "local": the weight within the last LOCAL keys, the query's own included


@dataclass(frozen=True)
class Lens:
    """The residual stream read as if each layer were the last (row 0: the embedding, row i:
    after layer i − 1 in code, layer i counted from 1)."""

    top_ids: np.ndarray  # [L + 1, TOP] the most likely pieces at the last position
    top_p: np.ndarray  # [L + 1, TOP] their probabilities
    answer: int  # the model's own next piece: the last row's first
    rank: np.ndarray  # [L + 1] the answer's rank in each row (1 = first)
    p: np.ndarray  # [L + 1] its probability there
    map_ids: np.ndarray  # [L + 1, m] each row's first piece at each of the last m positions
    map_p: np.ndarray  # [L + 1, m] its probability
    map_from: int  # the map's first position


def logit_lens(model, H, positions: int = MAP_POSITIONS, answer: int | None = None) -> Lens:
    """Every row of the stream ``H`` (n_layers + 1 arrays [n, d_model]) at the last ``positions``
    positions through the final norm and the tied head, LENS_ROWS rows at a time; the rank and p
    of ``answer`` (default: this stream's own last first piece) in each."""
    n = H[0].shape[0]
    m = min(n, positions)
    rows = np.concatenate([h[n - m :] for h in H])  # [(L + 1) · m, d_model], row-major by layer
    ids, p, last = [], [], None  # last: [L + 1, vocab] each layer's row at the last position
    for start in range(0, len(rows), LENS_ROWS):
        logits = model.lens(rows[start : start + LENS_ROWS])  # [rows, vocab] float32
        if last is None:
            last = np.empty((len(H), logits.shape[-1]), dtype=logits.dtype)
        first = np.argmax(logits, axis=-1)
        for i in np.flatnonzero(np.arange(start, start + len(logits)) % m == m - 1):
            last[(start + i) // m] = logits[i]
        ids.append(first)
        logits -= logits[np.arange(len(logits)), first][:, None]  # in place: the first is 0
        p.append(1.0 / np.exp(logits, out=logits).sum(axis=-1))  # the first's probability
        del logits  # (else it stands beside the next block's while that is computed: 34 MB)
    map_ids = np.concatenate(ids).reshape(len(H), m)
    map_p = np.concatenate(p).reshape(len(H), m)
    # the top pieces a row at a time: over the whole [L + 1, vocab] at once, its negation and
    # argpartition's int64 indices stood ~57 MB above the rows themselves in a class's peak
    top_ids = np.stack([_top(row) for row in last])
    answer = int(top_ids[-1, 0]) if answer is None else answer
    rank = (last > last[:, answer : answer + 1]).sum(axis=-1) + 1
    # each row's softmax in float64 at the few pieces shown, a row at a time (not the whole
    # [L + 1, vocab] in float64: 40 MB and its copies, in the first class's peak)
    total = np.array([_log_total(row) for row in last])  # [L + 1]

    def p_of(ids):
        return np.exp(np.take_along_axis(last, ids, axis=-1).astype(np.float64) - total[:, None])

    return Lens(
        top_ids,
        p_of(top_ids),
        answer,
        rank,
        p_of(np.full((len(last), 1), answer))[:, 0],
        map_ids,
        map_p,
        n - m,
    )


def _top(row) -> np.ndarray:
    """The TOP largest entries' indices, largest first."""
    top = np.argpartition(row, -TOP)[-TOP:]
    return top[np.argsort(-row[top])]


def _log_total(row) -> float:
    """log Σ exp(row), in float64."""
    z = np.asarray(row, dtype=np.float64)
    top = z.max()
    return float(top + np.log(np.exp(z - top).sum()))


@dataclass(frozen=True)
class ResidualParts:
    """The answer's logit at the last position as a sum: what the embedding put in, and what each
    layer's attention and feed-forward added, each read through the final norm's scale there."""

    embedding: float
    attention: np.ndarray  # [L]
    feed_forward: np.ndarray  # [L]
    logit: float  # the model's own logit of the answer

    @property
    def total(self) -> float:
        return float(self.embedding + self.attention.sum() + self.feed_forward.sum())

    def printed(self, decimals: int) -> tuple[list[str], str]:
        """The embedding's, all attention's and all feed-forward's shares as printed with
        ``decimals``, and their total as the sum of those printed parts (number_text.printed_sum):
        the line adds up as printed; ``total`` unrounded may differ from it in the last place."""
        parts = [self.embedding, self.attention.sum(), self.feed_forward.sum()]
        return printed_sum(parts, decimals)


def residual_parts(model, run, answer: int) -> ResidualParts:
    """The final RMSNorm divides the last row by one number, its root mean square, and scales
    each coordinate by the norm's weight; the head then takes a dot product with the answer's
    embedding row. Both are linear once that number is fixed, so each addition to the stream
    gets its own share of the logit: part / rms · weight · E[answer]."""
    last = run.H[-1][-1].astype(np.float64)
    rms = np.sqrt(np.mean(last * last) + model.config.eps)
    weight, row = to_numpy(model.final_norm), to_numpy(model.E[answer])  # a GPU's: to the host
    direction = weight.astype(np.float64) * row.astype(np.float64) / rms

    def share(part) -> float:
        return float(part[-1].astype(np.float64) @ direction)

    return ResidualParts(
        share(run.H[0]),
        np.array([share(attention) for attention, _ in run.added]),
        np.array([share(ff) for _, ff in run.added]),
        float(run.logits[-1, answer]),
    )


# a word of Latin letters or of Chinese characters, with or without its leading space: a piece any
# learner's font draws (a random one is as likely Tamil or Georgian, drawn as empty boxes)
READABLE = re.compile("\u2581?(?:[A-Za-z]{2,}|[\u4e00-\u9fff]+)")


@lru_cache(maxsize=4)
def readable_pieces(model) -> np.ndarray:
    """The ids of ``model``'s ordinary pieces that READABLE matches, matched once per model
    (Gemma's 262,144 pieces take 0.3 s: ui/work/model_load.py asks as soon as it is loaded)."""
    tokenizer = model.tokenizer
    ids = np.array([
        i
        for i, (text, kind) in enumerate(zip(tokenizer.vocabulary, tokenizer.types, strict=True))
        if kind == NORMAL and READABLE.fullmatch(text)
    ])  # fmt: skip
    ids.flags.writeable = False  # (shared by every caller)
    return ids


def repeated_tokens(model, seed: int, length: int = REPEAT_LENGTH) -> tuple:
    """<bos> where the model puts one before every text (Gemma; SmolLM2, ``add_bos`` False, puts
    none: its sequence starts with the first random piece, as its texts start with their own),
    then ``length`` random readable ordinary pieces, then the same pieces again (a model with
    fewer readable pieces, as many as it has)."""
    tokenizer, pool = model.tokenizer, readable_pieces(model)
    length = min(length, len(pool))
    chosen = np.random.default_rng(seed).choice(pool, size=length, replace=False)
    lead = (tokenizer.bos,) if getattr(tokenizer, "add_bos", True) else ()
    return (*lead, *(int(i) for i in chosen), *(int(i) for i in chosen))


def losses(logits, ids) -> np.ndarray:
    """[n − 1] −log p of each next piece: position t predicting ids[t + 1], in nats."""
    return _nats(np.asarray(logits)[:-1], np.asarray(ids[1:]))


def losses_of(model, h, ids) -> np.ndarray:
    """``losses`` of the last residual rows ``h`` [n, d_model], read through the model's head
    LENS_ROWS rows at a time: never the whole [n, vocab] of logits at once."""
    n = len(ids) - 1
    return np.concatenate(
        [
            _nats(
                model.lens(h[start : min(start + LENS_ROWS, n)]),
                np.asarray(ids[start + 1 : min(start + LENS_ROWS, n) + 1]),
                own=True,
            )
            for start in range(0, n, LENS_ROWS)
        ]  # fmt: skip
    )


def _nats(logits, targets, own: bool = False) -> np.ndarray:
    """−log softmax(logits)[row, target] of each row (``own``: the logits are this call's to
    overwrite, a block of losses_of's, and are shifted in place rather than beside a copy)."""
    top = logits.max(axis=-1)
    picked = logits[np.arange(len(logits)), targets]
    shifted = logits if own else logits.copy()
    shifted -= top[:, None]  # the exponentials in the logits' own float32, summed in
    np.exp(shifted, out=shifted)  # float64: within 1e-7 nats of float64 throughout, 20x faster
    log_total = top.astype(np.float64) + np.log(shifted.sum(axis=-1, dtype=np.float64))
    return log_total - picked


def copy_halves(loss) -> tuple[float, float]:
    """The mean loss on the first copy and on the second of a repeated sequence (repeated_tokens:
    two copies of k pieces, after a <bos> or not), the first piece of each copy left out: the
    first cannot be guessed, the second's copy has not begun. Loss t predicts piece t + 1: with
    <bos>, 2k losses, the copies' first pieces predicted by losses 0 and k; without, 2k − 1
    losses, the second copy's first piece by loss k − 1 (the first copy's, by none)."""
    lead = 1 - len(loss) % 2  # 1 after a <bos> (an even count of losses), else 0
    length = (len(loss) + 1) // 2  # k either way
    return (
        float(loss[lead : length - 1 + lead].mean()),
        float(loss[length + lead :].mean()),
    )


SCORES = ("previous", "induction", "sink", "local")


def head_scores(A_layers, ids) -> dict[str, np.ndarray]:
    """Each head's scores, [L, h] each, averaged over the queries they apply to:

    previous:  the weight on the key just before the query (queries 1 …);
    induction: the weight on every key j whose previous piece is the query's piece (the piece
               that came after an earlier copy of the current one), over the queries that have one;
    sink:      the weight on position 0: <bos>, or the first piece where the model puts none
               (queries 1 …);
    local:     the weight on the last LOCAL keys, the query's own included (queries 1 …)."""
    A = np.stack([np.asarray(a, dtype=np.float64) for a in A_layers])  # [L, h, n, n]
    n = A.shape[-1]
    ids = np.asarray(ids)
    i = np.arange(1, n)
    previous = A[..., i, i - 1].mean(axis=-1)
    sink = A[..., 1:, 0].mean(axis=-1)
    near = np.tril(np.ones((n, n), dtype=bool)) & ~np.tril(np.ones((n, n), dtype=bool), -LOCAL)
    local = (A * near).sum(axis=-1)[..., 1:].mean(axis=-1)
    after = np.zeros((n, n), dtype=bool)  # query q, key j: j ≤ q, ids[j − 1] == ids[q]
    after[:, 1:] = ids[:, None] == ids[None, :-1]
    after &= np.tril(np.ones((n, n), dtype=bool))
    queries = after.any(axis=-1)
    if queries.any():
        induction = (A * after)[..., queries, :].sum(axis=-1).mean(axis=-1)
    else:
        induction = np.zeros(A.shape[:2])
    return {"previous": previous, "induction": induction, "sink": sink, "local": local}
