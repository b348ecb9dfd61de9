"""A BERT encoder in NumPy, read from the model's own weights: enough to trace its attention."""

import math
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from core.attention import attention
from core.pretrained.safetensors import read_safetensors
from core.pretrained.wordpiece import basic_tokens, wordpiece
from core.weights import Weights

_erf = np.frompyfunc(math.erf, 1, 1)


def gelu(x: np.ndarray) -> np.ndarray:
    """The exact GELU BERT uses: x Φ(x) = x (1 + erf(x / √2)) / 2."""
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)).astype(x.dtype))


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


@dataclass(frozen=True)
class Piece:
    text: str  # the model's piece, e.g. "##ing" or "[CLS]"
    word: int | None  # index of the learner's whitespace word it came from (None: special)


@dataclass
class BertModel:
    """Weights and vocabulary of a BERT-style encoder."""

    name: str
    tensors: dict
    vocab: dict
    n_layers: int
    n_heads: int
    d_model: int
    eps: float
    lowercase: bool = True

    @classmethod
    def from_directory(cls, name: str, directory: Path, config: dict) -> "BertModel":
        words = (directory / "vocab.txt").read_text(encoding="utf-8").splitlines()
        return cls(
            name,
            read_safetensors(directory / "model.safetensors"),
            {word: i for i, word in enumerate(words)},
            config["num_hidden_layers"],
            config["num_attention_heads"],
            config["hidden_size"],
            config.get("layer_norm_eps", 1e-12),
        )

    def pieces(self, sentence: str) -> list[Piece]:
        """[CLS], each word's WordPiece pieces (remembering the word), [SEP]."""
        out = [Piece("[CLS]", None)]
        for w, word in enumerate(sentence.split()):
            for token in basic_tokens(word, self.lowercase):
                out += [Piece(p, w) for p in wordpiece(token, self.vocab)]
        return out + [Piece("[SEP]", None)]

    def tokenize(self, sentence: str) -> list[str]:
        return [piece.text for piece in self.pieces(sentence)]

    def _w(self, name: str) -> np.ndarray:
        """A weight in float64 (converted once)."""
        cache = self.__dict__.setdefault("_float64", {})
        if name not in cache:
            cache[name] = self.tensors[name].astype(np.float64)
        return cache[name]

    def hidden_states(self, sentence: str) -> list[np.ndarray]:
        """The input of every layer and the last output: n_layers + 1 arrays [n, d_model]."""
        ids = [self.vocab.get(p, self.vocab["[UNK]"]) for p in self.tokenize(sentence)]
        n = len(ids)
        e = "embeddings."
        H = (
            self._w(e + "word_embeddings.weight")[ids]
            + self._w(e + "position_embeddings.weight")[:n]
            + self._w(e + "token_type_embeddings.weight")[0]
        )
        H = layer_norm(H, self._w(e + "LayerNorm.weight"), self._w(e + "LayerNorm.bias"), self.eps)
        states = [H]
        for layer in range(self.n_layers):
            p = f"encoder.layer.{layer}."
            attended = attention(*self._attention_inputs(H, layer)).output
            out = attended + self._w(p + "attention.output.dense.bias")
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
        return states

    def _attention_inputs(self, H: np.ndarray, layer: int):
        """X with a column of ones and weights with the bias as their last row, so the core's
        attention computes X W + b. W_O leaves out its bias (added after, as in the model)."""
        p = f"encoder.layer.{layer}.attention."
        X = np.hstack([H, np.ones((H.shape[0], 1))])  # [n, d_model + 1]

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

    def trace(self, sentence: str, layer: int):
        """The self-attention of ``layer`` (0-based) over the pieces, as a core AttentionTrace:
        X is the layer's input, Q/K/V include the model's biases, weights are its probabilities."""
        H = self.hidden_states(sentence)[layer]
        return replace(attention(*self._attention_inputs(H, layer)), X=H)
