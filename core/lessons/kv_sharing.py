"""How the query heads share K and V, with a real model's numbers: one K/V head per query head
(multi-head attention, the walkthrough's), one for all (multi-query, Gemma 3 270M), or one per
group (grouped-query, SmolLM2-135M); what the K/V cache keeps per token and at a length, and the
factor saved against one K/V head per query head. The cache's numbers are this app's (float32, as
core/pretrained/decoder.py keeps it). And where the sharing can be seen: the layer in which the
query heads of a group, reading the same keys, weigh them most differently.

Positions, heads and layers count from 0 here, as in code."""

from dataclasses import dataclass
from itertools import combinations

import numpy as np

BYTES = 4  # float32: one number of K or V in the app's cache


@dataclass(frozen=True)
class Sharing:
    n_layers: int
    n_heads: int  # query heads
    n_kv_heads: int
    head_dim: int

    @property
    def way(self) -> str:
        """ "multi-head", "grouped-query" or "multi-query"."""
        if self.n_kv_heads == self.n_heads:
            return "multi-head"
        return "multi-query" if self.n_kv_heads == 1 else "grouped-query"

    @property
    def per_token(self) -> int:
        """Bytes the cache keeps for one position: K and V, in every layer, once per K/V head."""
        return 2 * self.n_layers * self.n_kv_heads * self.head_dim * BYTES

    def at(self, tokens: int) -> int:
        return tokens * self.per_token

    @property
    def saved(self) -> int:
        """How many times smaller the cache is than with one K/V head per query head."""
        return self.n_heads // self.n_kv_heads

    def readers(self) -> list[list[int]]:
        """For each K/V head (from 0), the query heads that read it: head j reads j // group."""
        group = self.n_heads // self.n_kv_heads
        return [list(range(kv * group, (kv + 1) * group)) for kv in range(self.n_kv_heads)]


def sharing_of(config) -> Sharing:
    """A decoder's sharing, from its config (core.decoder_facts)."""
    return Sharing(config.n_layers, config.n_heads, config.n_kv_heads, config.head_dim)


def three_ways(config) -> list[Sharing]:
    """The model's layer kept as it is, beside the same layer with one K/V head per query head
    and with one for all: multi-head, the model's own, multi-query (its own one of them)."""
    own = sharing_of(config)
    ways = [Sharing(own.n_layers, own.n_heads, k, own.head_dim) for k in (own.n_heads, 1)]
    return sorted({*ways, own}, key=lambda s: -s.n_kv_heads)


def spread(weights) -> float:
    """How differently some query heads weigh the same keys: their rows of weights [heads, keys]
    (each summing to 1), the mean over pairs of heads of the total variation distance, half the
    summed absolute difference (0: the same weights; 1: weight on different keys)."""
    rows = np.asarray(weights, dtype=np.float64)
    pairs = [0.5 * np.abs(rows[a] - rows[b]).sum() for a, b in combinations(range(len(rows)), 2)]
    return float(np.mean(pairs)) if pairs else 0.0


def group_spreads(weights, n_kv_heads: int) -> list[float]:
    """``spread`` within each K/V head's group of query heads: ``weights`` [query heads, keys],
    head j in group j // (heads / n_kv_heads)."""
    group = len(weights) // n_kv_heads
    return [spread(weights[kv * group : (kv + 1) * group]) for kv in range(n_kv_heads)]


def most_different_layer(last_rows, n_kv_heads: int) -> int:
    """The layer whose groups all show their heads apart: ``last_rows`` [layers, query heads,
    keys] (each head's weights for one query, e.g. the last position's), the layer with the
    largest least ``group_spreads`` (every group, not one, differs there); the first of equals."""
    least = [min(group_spreads(rows, n_kv_heads)) for rows in np.asarray(last_rows)]
    return int(np.argmax(least))
