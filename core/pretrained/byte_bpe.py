"""A byte-level BPE tokenizer read from a GGUF's vocabulary and merges (GPT-2's kind, SmolLM2's):
the text is cut into chunks (each digit 0-9 alone, then GPT-2's rule: a word with the space
before it, a number, a run of other signs, spaces), each chunk's UTF-8 bytes are written as
printable letters (GPT-2's table: a space is "Ġ", a newline "Ċ", a Chinese character three
letters), and the adjacent pair with the best-ranked merge is merged, again and again. Every
byte has a piece, so nothing is unknown; a character outside the merges stays as its bytes, one
piece each. No token starts the sequence (the model's own rule); control tokens typed as text
stay text.
"""

import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

CONTRACTIONS = ("'s", "'t", "'re", "'ve", "'m", "'ll", "'d")


def byte_letters() -> list[str]:
    """GPT-2's printable letter for each byte 0-255: printable Latin-1 bytes stand for
    themselves, the others (controls, space) take the letters from U+0100 on, in order."""
    kept = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
            *range(ord("®"), ord("ÿ") + 1)]  # fmt: skip
    letters, extra = {}, 0
    for b in range(256):
        if b in kept:
            letters[b] = chr(b)
        else:
            letters[b] = chr(256 + extra)
            extra += 1
    return [letters[b] for b in range(256)]


LETTERS = byte_letters()
BYTE_OF = {letter: b for b, letter in enumerate(LETTERS)}


def _kind(ch: str) -> str:
    """ "L" a letter, "N" a number, " " white space, "o" anything else (as \\p{L}, \\p{N}, \\s)."""
    if ch.isspace():
        return " "
    category = unicodedata.category(ch)[0]
    return category if category in "LN" else "o"


def chunks(text: str) -> list[str]:
    """The text cut as SmolLM2's pre-tokenizer cuts it (as transformers reads its GGUF): every
    digit 0-9 alone (other numbers, ½ Ⅻ ² ٣, stay with GPT-2's \\p{N}), then within the rest
    GPT-2's pattern 's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+|
    ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+, written out as a scanner."""
    out, stretch = [], []
    for ch in text:
        if "0" <= ch <= "9":
            out += _gpt2(stretch) + [ch]
            stretch = []
        else:
            stretch.append(ch)
    return out + _gpt2(stretch)


def _gpt2(chars: list) -> list[str]:
    text, out, i = "".join(chars), [], 0
    kinds = [_kind(c) for c in text]
    n = len(text)
    while i < n:
        word = next((c for c in CONTRACTIONS if text.startswith(c, i)), None)
        if word:
            out.append(word)
            i += len(word)
            continue
        start = i + 1 if text[i] == " " and i + 1 < n and kinds[i + 1] != " " else i
        kind = kinds[start]
        if kind != " ":  # ( ?)\p{L}+, ( ?)\p{N}+ or ( ?)[^\s\p{L}\p{N}]+
            end = start + 1
            while end < n and kinds[end] == kind:
                end += 1
            out.append(text[i:end])
            i = end
            continue
        end = i  # \s+(?!\S): the run, less its last space when a word follows it; else \s+
        while end < n and kinds[end] == " ":
            end += 1
        if end < n and end - i > 1:
            end -= 1
        out.append(text[i:end])
        i = end
    return out


@dataclass
class ByteBPETokenizer:
    vocabulary: list  # piece text by id, in GPT-2's letters for bytes
    merges: list  # "a b": the pair's merge, best first
    types: list  # GGUF token type by id
    bos: int
    eos: int
    add_bos: bool = False  # SmolLM2: no token before the text
    _ids: dict = field(init=False, repr=False)
    _ranks: dict = field(init=False, repr=False)

    def __post_init__(self):
        self._ids = {piece: i for i, piece in enumerate(self.vocabulary)}
        self._ranks = {tuple(pair.split(" ", 1)): rank for rank, pair in enumerate(self.merges)}
        self._merge = lru_cache(maxsize=65536)(self._merge_uncached)

    def _merge_uncached(self, chunk: str) -> tuple[int, ...]:
        """One chunk's ids: its bytes as letters, the best-ranked adjacent pair merged until no
        pair has a merge."""
        symbols = [LETTERS[b] for b in chunk.encode("utf-8")]
        while len(symbols) > 1:
            ranked = [(self._ranks.get(pair, 1 << 30), k)
                      for k, pair in enumerate(zip(symbols, symbols[1:]))]  # fmt: skip
            rank, k = min(ranked)
            if rank == 1 << 30:
                break
            symbols[k : k + 2] = [symbols[k] + symbols[k + 1]]
        return tuple(self._ids[s] for s in symbols)

    def encode(self, text: str) -> list[int]:
        """The text's piece ids (``<bos>``'s first where the model adds it)."""
        ids = [self.bos] if self.add_bos else []
        for chunk in chunks(text):
            ids += self._merge(chunk)
        return ids

    def decode(self, ids) -> str:
        """The text of ``ids``: the pieces' letters back into bytes, the bytes into characters
        (control tokens left out)."""
        data = bytearray()
        for i in ids:
            if self.types[i] == 3:  # a control token (<|im_start|>, <|endoftext|>)
                continue
            data += bytes(BYTE_OF[letter] for letter in self.vocabulary[i])
        return data.decode("utf-8", errors="replace")

    def piece_bytes(self, i: int) -> bytes:
        """The bytes piece ``i`` stands for (a control token: its name's)."""
        piece = self.vocabulary[i]
        if self.types[i] == 3:
            return piece.encode()
        return bytes(BYTE_OF[letter] for letter in piece)
