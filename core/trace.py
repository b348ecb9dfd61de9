"""AttentionTrace: every intermediate of one attention pass, named by the paper's symbols."""

from dataclasses import dataclass

PER_HEAD_FIELDS = ("Q", "K", "V", "S", "S_scaled", "S_masked", "A", "O")
FIELDS = ("X", *PER_HEAD_FIELDS, "concat", "output")
SQUARE_FIELDS = frozenset({"S", "S_scaled", "S_masked", "A"})  # [..., h, n, n]


@dataclass(frozen=True, eq=False)
class AttentionTrace:
    """Every intermediate of one attention pass; a field is None when the caller did not keep it.

    Shapes for X [n, d_model] (a leading b axis when X had one); h = number of heads held.
    """

    X: object = None  # [n, d_model]
    Q: object = None  # [h, n, d_k]
    K: object = None  # [h, n, d_k]
    V: object = None  # [h, n, d_v]
    S: object = None  # [h, n, n]  Q Kᵀ
    S_scaled: object = None  # [h, n, n]  S / √d_k
    S_masked: object = None  # [h, n, n]  S_scaled, -inf where the mask forbids (S_scaled itself
    #                                      when there is no mask)
    A: object = None  # [h, n, n]  softmax(S_masked) along the key axis; 0 where forbidden
    O: object = None  # [h, n, d_v]  O_h = A_h V_h
    concat: object = None  # [n, h·d_v]  heads side by side, head 0 first
    output: object = None  # [n, d_model]  concat W_O
    heads: tuple = ()  # which heads the per-head fields hold, in order
