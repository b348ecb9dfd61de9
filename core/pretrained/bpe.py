"""A SentencePiece BPE tokenizer read from a GGUF's vocabulary (Gemma 3's): spaces become ▁, the
text is cut at the vocabulary's own whole tokens (runs of newlines or tabs, a few HTML tags), then
each stretch starts as single characters and the adjacent pair whose merge scores highest is
merged, again and again; a character the vocabulary lacks falls back to its UTF-8 bytes
(<0xE4><0xBD><0xA0>). ``<bos>`` starts every sequence; control tokens typed as text stay text.
"""

import heapq
import re
from dataclasses import dataclass, field

import numpy as np

META = "\u2581"  # ▁, SentencePiece's visible space
NORMAL, UNKNOWN, CONTROL, USER, UNUSED, BYTE = 1, 2, 3, 4, 5, 6  # GGUF token types


@dataclass
class BPETokenizer:
    vocabulary: list  # piece text by id
    scores: list  # a merge's priority: higher merges first
    types: list  # GGUF token type by id
    bos: int
    eos: int
    _ids: dict = field(init=False, repr=False)
    _bytes: dict = field(init=False, repr=False)
    _whole: re.Pattern = field(init=False, repr=False)

    def __post_init__(self):
        """The lookups, by type picked with NumPy: a Python test per piece of 262 144 took 0.15-0.2
        s with the interpreter held, while a class's first pages drew (issue 54)."""
        types, text = np.asarray(self.types), self.vocabulary.__getitem__

        def of(*kinds) -> list[int]:
            return np.flatnonzero(np.isin(types, kinds)).tolist()

        self._ids = dict(zip(map(text, of(NORMAL, USER)), of(NORMAL, USER), strict=True))
        self._bytes = {int(text(i)[3:5], 16): i for i in of(BYTE)}
        whole = sorted(map(text, of(USER)), key=len)
        self._whole = re.compile("|".join(re.escape(t) for t in reversed(whole)))

    def _merge(self, text: str) -> list[int]:
        """One stretch without whole tokens: characters merged pair by pair, best score first."""
        symbols = list(text.replace(" ", META))
        alive = [True] * len(symbols)
        right = list(range(1, len(symbols))) + [-1]
        left = [-1] + list(range(len(symbols) - 1))
        heap = []

        def offer(i):
            j = right[i]
            if j >= 0:
                piece = self._ids.get(symbols[i] + symbols[j])
                if piece is not None:
                    heapq.heappush(heap, (-self.scores[piece], i, symbols[i] + symbols[j]))

        for i in range(len(symbols) - 1):
            offer(i)
        while heap:
            _, i, merged = heapq.heappop(heap)
            j = right[i] if alive[i] else -1
            if j < 0 or symbols[i] + symbols[j] != merged:
                continue  # stale: one side merged since
            symbols[i], alive[j] = merged, False
            right[i] = right[j]
            if right[j] >= 0:
                left[right[j]] = i
            offer(i)
            if left[i] >= 0:
                offer(left[i])
        ids = []
        for i, text_i in enumerate(symbols):
            if alive[i]:
                piece = self._ids.get(text_i)
                ids += [piece] if piece is not None else [self._bytes[b] for b in text_i.encode()]
        return ids

    def encode(self, text: str) -> list[int]:
        """``<bos>`` and the text's piece ids."""
        ids, at = [self.bos], 0
        for match in self._whole.finditer(text):
            ids += self._merge(text[at : match.start()]) + [self._ids[match.group()]]
            at = match.end()
        return ids + self._merge(text[at:])

    def decode(self, ids) -> str:
        """The text of ``ids`` (control tokens left out, bytes joined back into characters)."""
        out, pending = [], bytearray()
        for i in ids:
            if self.types[i] == BYTE:
                pending.append(int(self.vocabulary[i][3:5], 16))
                continue
            if pending:
                out.append(pending.decode("utf-8", errors="replace"))
                pending = bytearray()
            if self.types[i] != CONTROL:
                out.append(self.vocabulary[i].replace(META, " "))
        if pending:
            out.append(pending.decode("utf-8", errors="replace"))
        return "".join(out)
