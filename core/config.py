"""AttentionConfig: the sizes, seed and dtype of one self-attention layer."""

from dataclasses import dataclass

from core.errors import InputError

DTYPES = ("float32", "float64")


def check_positive(name: str, value) -> int:
    """``value`` as an int when it is a positive whole number, else InputError naming it."""
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise InputError("non_positive", name=name, value=value)
    return value


@dataclass(frozen=True)
class AttentionConfig:
    d_model: int = 8  # width of each token vector x_i
    n_heads: int = 2  # heads computed side by side
    d_k: int | None = None  # query/key width per head; None -> d_model // n_heads
    d_v: int | None = None  # value width per head; None -> d_model // n_heads
    seed: int = 0  # same seed -> same embeddings and weights
    positional: bool = True  # add the sinusoidal positional encoding to X
    dtype: str = "float64"  # "float32" or "float64"

    def __post_init__(self):
        check_positive("d_model", self.d_model)
        check_positive("n_heads", self.n_heads)
        if self.dtype not in DTYPES:
            raise InputError("bad_dtype", dtype=self.dtype)
        if self.d_k is None or self.d_v is None:
            if self.d_model % self.n_heads:
                raise InputError("heads_do_not_divide", d_model=self.d_model, n_heads=self.n_heads)
            per_head = self.d_model // self.n_heads
            object.__setattr__(self, "d_k", per_head if self.d_k is None else self.d_k)
            object.__setattr__(self, "d_v", per_head if self.d_v is None else self.d_v)
        check_positive("d_k", self.d_k)
        check_positive("d_v", self.d_v)
