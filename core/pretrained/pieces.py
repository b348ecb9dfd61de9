"""What a tokenizer hands the encoder: its pieces, each remembering the learner's word."""

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Piece:
    text: str  # the model's piece, e.g. "##ing", "▁good" or "[CLS]"
    word: int | None  # index of the learner's whitespace word it came from (None: special)
    id: int  # its row in the model's embedding table


class Tokenizer(Protocol):
    def pieces(self, sentence: str) -> list[Piece]: ...
