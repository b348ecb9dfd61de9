"""Cached calls into core: one trace per distinct setting, shared by every session on the server."""

from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np
import streamlit as st

import core
from core.backend import asarray
from core.lessons.scaling import dot_products, softmax_sharpness
from ui.kit.errors import show_input_error
from ui.kit.i18n import t
from ui.kit.settings import MAX_CHARS, MAX_TOKENS, SETTINGS
from ui.kit.shared_cache import CLASS


@dataclass(frozen=True)
class SentenceTrace:
    """Everything the pages draw for one sentence, on the host as NumPy."""

    tokens: tuple
    E: np.ndarray  # [n, d_model] token embeddings
    PE: np.ndarray | None  # [n, d_model] positional encoding (None when off)
    W: core.Weights  # W_Q, W_K, W_V, W_O as NumPy
    trace: core.AttentionTrace  # every intermediate, NumPy
    mask: np.ndarray | None  # [n, n] True = allowed, None = no mask
    d_k: int
    d_v: int
    backend: str

    @property
    def n(self) -> int:
        return len(self.tokens)


def _host_weights(W: core.Weights) -> core.Weights:
    return core.Weights(**{name: core.to_numpy(M) for name, M in vars(W).items()})


def _host_trace(trace: core.AttentionTrace) -> core.AttentionTrace:
    return replace(trace, **{name: core.to_numpy(getattr(trace, name)) for name in core.FIELDS})


@dataclass(frozen=True)
class TraceKey:
    """What a sentence's trace depends on: the cache key shared by every session. Its fields
    are the layer's settings (ui/kit/settings.py), and the token cap."""

    sentence: str
    mode: str
    d_model: int
    n_heads: int
    seed: int
    positional: bool
    mask: str
    max_tokens: int = MAX_TOKENS

    @property
    def causal(self) -> bool:
        return self.mask == "causal"

    def with_heads(self, n_heads: int) -> "TraceKey":
        return replace(self, n_heads=n_heads)

    def with_sentence(self, sentence: str, positional: bool) -> "TraceKey":
        return replace(self, sentence=sentence, positional=positional, mode="auto", mask="none")

    @classmethod
    def of(cls, settings) -> "TraceKey":
        return cls(**{s.name: getattr(settings, s.name) for s in SETTINGS if s.layer})


@lru_cache(maxsize=CLASS)  # (a class, each learner with their own sentence)
def sentence_trace(key: TraceKey) -> SentenceTrace:
    """Tokenize, embed, add PE, attend. Raises core.InputError for input the learner can fix.

    Every page of every session asks for this on every run, so it is cached in the process by the
    (hashable) key itself: st.cache_data would hash the key field by field and unpickle a copy each
    time. Sessions share the one result, so its arrays are made read-only.
    """
    tokens = core.tokenize(key.sentence, key.mode, max_tokens=key.max_tokens, max_chars=MAX_CHARS)
    config = core.AttentionConfig(
        d_model=key.d_model, n_heads=key.n_heads, seed=key.seed, positional=key.positional
    )
    n = len(tokens)
    E = core.embed(tokens, key.d_model, key.seed)  # [n, d_model]
    PE = core.positional_encoding(n, key.d_model) if key.positional else None  # [n, d_model]
    X = E if PE is None else E + PE  # [n, d_model]
    W = core.init_weights(config, n=n)
    mask = core.causal_mask(n) if key.causal else None
    trace = core.attention(X, W, key.n_heads, mask)
    return _read_only(
        SentenceTrace(
            tokens=tuple(tokens),
            E=core.to_numpy(E),
            PE=core.to_numpy(PE),
            W=_host_weights(W),
            trace=_host_trace(trace),
            mask=core.to_numpy(mask),
            d_k=config.d_k,
            d_v=config.d_v,
            backend=core.active_backend(n).name,
        )
    )


def _read_only(data: SentenceTrace) -> SentenceTrace:
    arrays = [data.E, data.PE, data.mask, *vars(data.W).values()]
    arrays += [getattr(data.trace, name) for name in core.FIELDS]
    for array in arrays:
        if isinstance(array, np.ndarray):
            array.flags.writeable = False
    return data


@st.cache_data(max_entries=16, show_spinner=False)
def loop_trace(key: TraceKey) -> core.AttentionTrace:
    """The per-token loop over the same inputs as sentence_trace (for comparing the two)."""
    data = sentence_trace(key)
    return _host_trace(core.attention_loop(data.trace.X, data.W, key.n_heads, data.mask))


def trace_for(settings) -> SentenceTrace:
    return sentence_trace(TraceKey.of(settings))


def loop_for(settings) -> core.AttentionTrace:
    return loop_trace(TraceKey.of(settings))


PAD = "<pad>"
BATCH_MASKS = ("padding", "causal", "both")


@dataclass(frozen=True)
class BatchTrace:
    """A padded batch of sentences and its attention, on the host."""

    tokens: tuple  # per sentence, padded with PAD to n
    lengths: tuple  # real tokens per sentence
    masks: dict  # "padding" [b, n, n], "causal" [n, n], "both" [b, n, n], True = allowed
    trace: core.AttentionTrace  # with a leading batch axis
    allowed: np.ndarray  # [b, n, n] the mask actually used


@st.cache_data(max_entries=64, show_spinner=False)
def batch_trace(sentences: tuple, key: TraceKey, mask_kind: str) -> BatchTrace:
    """Pad sentences to one length (zero vectors for PAD), X [b, n, d_model], then attend."""
    token_lists = [
        core.tokenize(s, key.mode, max_tokens=64, max_chars=MAX_CHARS) if s.strip() else []
        for s in sentences
    ]
    lengths = [len(tokens) for tokens in token_lists]
    n = max(1, *lengths)
    X = np.zeros((len(sentences), n, key.d_model))  # [b, n, d_model]; padding rows stay 0
    for s, tokens in enumerate(token_lists):
        if tokens:
            E = core.to_numpy(core.embed(tokens, key.d_model, key.seed))  # [len, d_model]
            PE = core.to_numpy(core.positional_encoding(len(tokens), key.d_model))
            X[s, : len(tokens)] = E + PE if key.positional else E
    masks = {
        "padding": core.to_numpy(core.padding_mask(lengths, n)),
        "causal": core.to_numpy(core.causal_mask(n)),
    }
    masks["both"] = masks["padding"] & masks["causal"]
    allowed = np.broadcast_to(masks[mask_kind], (len(sentences), n, n))
    W = core.init_weights(
        core.AttentionConfig(d_model=key.d_model, n_heads=key.n_heads, seed=key.seed), n=n
    )
    trace = _host_trace(core.attention(asarray(X, n), W, key.n_heads, asarray(allowed, n)))
    padded = tuple(tuple(tokens) + (PAD,) * (n - len(tokens)) for tokens in token_lists)
    return BatchTrace(padded, tuple(lengths), masks, trace, np.asarray(allowed))


SCALING_D_K = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)


@st.cache_data(max_entries=32, show_spinner=False)
def dot_product_samples(d_k: int, samples: int) -> np.ndarray:
    return dot_products(d_k, samples, seed=d_k)


@st.cache_data(max_entries=8, show_spinner=False)
def sharpness_curves(n_keys: int) -> dict:
    """(max weight, entropy, gradient) with and without scaling for every d_k in SCALING_D_K."""
    return {
        scaled: [softmax_sharpness(d_k, n_keys, scaled) for d_k in SCALING_D_K]
        for scaled in (False, True)
    }


@dataclass(frozen=True)
class ModelTraces:
    """Every layer's attention in a trained model over one sentence, on the host."""

    pieces: tuple  # the model's pieces, e.g. [CLS] ... [SEP] or <s> ... </s>
    words: tuple  # for each piece, the learner's word index (None for the special pieces)
    traces: tuple  # core.AttentionTrace per layer

    @property
    def A(self) -> np.ndarray:
        """A of every layer and head, [layers, heads, n, n]."""
        return np.stack([trace.A for trace in self.traces])


@st.cache_data(max_entries=16, show_spinner=False)
def model_traces(model_name: str, sentence: str) -> ModelTraces:
    """A trained model's attention over ``sentence``; InputError when the model is missing."""
    core.tokenize(sentence, max_chars=2000, max_tokens=200)  # empty or too long: a clear message
    model = core.pretrained.load(model_name)
    pieces = model.pieces(sentence)
    return ModelTraces(
        tuple(p.text for p in pieces),
        tuple(p.word for p in pieces),
        tuple(_host_trace(trace) for trace in model.traces(sentence)),
    )


def trace_or_stop(settings):
    """The sidebar sentence's trace; on bad input, the message and nothing more on this page."""
    try:
        data = trace_for(settings)
    except core.InputError as error:
        show_input_error(error, box="sentence", mode=settings.mode)
        st.stop()
    invisible = core.count_invisible(settings.sentence)
    if invisible:
        st.caption(t("shell.invisible_removed", k=invisible))
    return data
