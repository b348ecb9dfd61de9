"""A BERT encoder in NumPy, read from the model's own weights: enough to trace its attention."""

import math
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from core.attention import attention
from core.pretrained.pieces import Piece, Tokenizer
from core.pretrained.safetensors import read_safetensors
from core.pretrained.wordpiece import WordPieceTokenizer
from core.weights import Weights

_erf = np.frompyfunc(math.erf, 1, 1)


def gelu(x: np.ndarray) -> np.ndarray:
    """The exact GELU BERT uses: x Φ(x) = x (1 + erf(x / √2)) / 2."""
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)).astype(x.dtype))


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


@dataclass
class BertModel:
    """Weights and tokenizer of a BERT-style encoder (BERT, or XLM-R, which has the same layers).

    ``tensors`` use Hugging Face's names; the word table may instead be ``word_table``, anything
    that returns rows for a list of ids (a quantised table dequantises only those)."""

    name: str
    tensors: dict
    tokenizer: Tokenizer
    n_layers: int
    n_heads: int
    d_model: int
    eps: float
    word_table: object = None

    @classmethod
    def from_directory(cls, name: str, directory: Path, config: dict) -> "BertModel":
        words = (directory / "vocab.txt").read_text(encoding="utf-8").splitlines()
        return cls(
            name,
            read_safetensors(directory / "model.safetensors"),
            WordPieceTokenizer({word: i for i, word in enumerate(words)}),
            config["num_hidden_layers"],
            config["num_attention_heads"],
            config["hidden_size"],
            config.get("layer_norm_eps", 1e-12),
        )

    def pieces(self, sentence: str) -> list[Piece]:
        return self.tokenizer.pieces(sentence)

    def tokenize(self, sentence: str) -> list[str]:
        return [piece.text for piece in self.pieces(sentence)]

    def _w(self, name: str) -> np.ndarray:
        """A weight, in float32 as the model stores it (the model runs in float32, like torch)."""
        return np.asarray(self.tensors[name], dtype=np.float32)

    def hidden_states(self, sentence: str) -> list[np.ndarray]:
        """The input of every layer and the last output: n_layers + 1 arrays [n, d_model]."""
        return self._run(sentence)[0]

    def traces(self, sentence: str) -> list:
        """Every layer's self-attention over the pieces (one pass), as core AttentionTraces:
        X is the layer's input, Q/K/V include the model's biases, A holds its probabilities."""
        return self._run(sentence)[1]

    def trace(self, sentence: str, layer: int):
        """The self-attention of ``layer`` (0-based); see ``traces``."""
        return self.traces(sentence)[layer]

    def _run(self, sentence: str):
        ids = [piece.id for piece in self.pieces(sentence)]
        n = len(ids)
        e = "embeddings."
        words = (
            self._w(e + "word_embeddings.weight")[ids]
            if self.word_table is None
            else self.word_table[ids]
        )
        H = (
            words
            + self._w(e + "position_embeddings.weight")[:n]
            + self._w(e + "token_type_embeddings.weight")[0]
        )
        H = layer_norm(H, self._w(e + "LayerNorm.weight"), self._w(e + "LayerNorm.bias"), self.eps)
        states, traces = [H], []
        for layer in range(self.n_layers):
            p = f"encoder.layer.{layer}."
            trace = replace(attention(*self._attention_inputs(H, layer)), X=H)
            traces.append(trace)
            out = trace.output + self._w(p + "attention.output.dense.bias")
            H1 = layer_norm(
                H + out,
                self._w(p + "attention.output.LayerNorm.weight"),
                self._w(p + "attention.output.LayerNorm.bias"),
                self.eps,
            )
            inner = gelu(
                H1 @ self._w(p + "intermediate.dense.weight").T
                + self._w(p + "intermediate.dense.bias")
            )
            out = inner @ self._w(p + "output.dense.weight").T + self._w(p + "output.dense.bias")
            H = layer_norm(
                H1 + out,
                self._w(p + "output.LayerNorm.weight"),
                self._w(p + "output.LayerNorm.bias"),
                self.eps,
            )
            states.append(H)
        return states, traces

    def _attention_inputs(self, H: np.ndarray, layer: int):
        """X with a column of ones and weights with the bias as their last row, so the core's
        attention computes X W + b. W_O leaves out its bias (added after, as in the model)."""
        p = f"encoder.layer.{layer}.attention."
        X = np.hstack([H, np.ones((H.shape[0], 1), H.dtype)])  # [n, d_model + 1]

        def with_bias(kind):
            return np.vstack(
                [self._w(p + f"self.{kind}.weight").T, self._w(p + f"self.{kind}.bias")]
            )

        W = Weights(
            W_Q=with_bias("query"),
            W_K=with_bias("key"),
            W_V=with_bias("value"),
            W_O=self._w(p + "output.dense.weight").T,
        )
        return X, W, self.n_heads
