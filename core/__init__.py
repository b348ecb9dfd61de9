"""Self-attention, step by step: every intermediate of multi-head attention, in NumPy or CuPy.

Pure computation: no Streamlit, no Plotly. The public API is ``__all__`` below; the engine lives
here, the other computations of the same thing in core/variants/, the per-page maths in
core/lessons/ and the trained models in core/pretrained/ (README, "Where things live").
"""

from core import practice, pretrained
from core.attention import attention
from core.backend import GPU_FROM_N, active_backend, to_numpy
from core.checks import check_finite, check_matmul
from core.config import AttentionConfig
from core.decoder import (
    decoder_entry,
    decoder_facts,
    decoder_names,
    decoder_tokenizer,
    first_decoder,
    load_decoder,
)
from core.embedding import embed
from core.errors import InputError
from core.heads import merge_heads, split_heads
from core.masks import causal_mask, padding_mask
from core.positional import positional_encoding
from core.softmax import softmax_rows
from core.tokens import MODES, count_invisible, tokenize
from core.trace import FIELDS, AttentionTrace
from core.variants.decoding import decode_incremental
from core.variants.loop import attention_loop
from core.variants.recurrent import rnn_chain
from core.variants.scalar import attention_scalar
from core.weights import Weights, init_weights

__all__ = [
    "practice",
    "pretrained",
    "decoder_entry",
    "decoder_facts",
    "first_decoder",
    "decoder_names",
    "decoder_tokenizer",
    "load_decoder",
    "FIELDS",
    "MODES",
    "AttentionConfig",
    "AttentionTrace",
    "InputError",
    "Weights",
    "attention",
    "attention_loop",
    "attention_scalar",
    "GPU_FROM_N",
    "active_backend",
    "causal_mask",
    "check_finite",
    "check_matmul",
    "count_invisible",
    "decode_incremental",
    "embed",
    "init_weights",
    "merge_heads",
    "padding_mask",
    "positional_encoding",
    "rnn_chain",
    "softmax_rows",
    "split_heads",
    "to_numpy",
    "tokenize",
]
