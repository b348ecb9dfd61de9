"""jieba's dictionary kept small and loaded fast: its words and their prefixes (498 113) with their
counts, as two sorted arrays of the words' 64-bit hashes and counts instead of a dict of strings.

jieba cuts a sentence by asking its dictionary, for each stretch of the sentence, whether it is a
word (or a word's beginning) and how often it occurs (``FREQ.get(word)``, ``word in FREQ``,
``FREQ[word]``). As jieba's dict that is 71 MB resident in every server process, loaded in about
1 s with the interpreter held (a class's first pages waited for it, and a classroom server with
Gemma loaded has no 71 MB to spare: issue 54). As arrays it is 8 MB; they are built once from
jieba's own load and kept in the temporary folder beside jieba's cache, and a server starting
after that reads them in milliseconds. A lookup is a binary search of about 19 steps.

The hash is BLAKE2b of each word's UTF-8 bytes: the same in every process (so the arrays can be
kept), and all 498 113 different. (Python's str hash is neither: it is salted per process, and it
hashes a str's stored bytes, so "He", two Latin-1 bytes 48 65, and "效", U+6548, share one, which
cut "Hello" into "He" "llo".) Two strings whose hashes meet by chance, one taken for the other,
come about once in 10^13 lookups.

Only reading is kept: jieba's ``add_word`` and ``suggest_freq``, which the app does not call,
would fail on it.
"""

import array
import bisect
import hashlib
import os
import tempfile
import zipfile
from pathlib import Path

import numpy as np

FORMAT = 1  # bumped when the kept arrays' layout changes


def _key(word: str) -> int:
    digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little", signed=True)


class WordFreq:
    """A read-only stand-in for jieba's ``Tokenizer.FREQ``: ``hashes`` sorted, ``counts`` theirs."""

    def __init__(self, hashes: np.ndarray, counts: np.ndarray):
        self._hashes = array.array("q", hashes.astype("<i8").tobytes())  # Python ints to bisect
        self._counts = array.array("q", counts.astype("<i8").tobytes())

    @classmethod
    def of(cls, freq: dict) -> "WordFreq":
        """From jieba's dict."""
        hashes = np.fromiter((_key(word) for word in freq), np.int64, len(freq))
        counts = np.fromiter(freq.values(), np.int64, len(freq))
        order = np.argsort(hashes)
        return cls(hashes[order], counts[order])

    def get(self, word: str, default=None):
        key = _key(word)
        i = bisect.bisect_left(self._hashes, key)
        if i < len(self._hashes) and self._hashes[i] == key:
            return self._counts[i]
        return default

    def __contains__(self, word: str) -> bool:
        return self.get(word) is not None

    def __getitem__(self, word: str) -> int:
        count = self.get(word)
        if count is None:
            raise KeyError(word)
        return count

    def __len__(self) -> int:
        return len(self._hashes)

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return np.frombuffer(self._hashes, np.int64), np.frombuffer(self._counts, np.int64)


def _kept_file(dictionary: Path, folder: Path) -> Path:
    """Where the arrays of this dictionary file, as it is now, are kept."""
    stat = dictionary.stat()
    about = f"{FORMAT}:{dictionary.resolve()}:{stat.st_size}:{stat.st_mtime_ns}"
    return folder / f"jieba-words-{hashlib.blake2b(about.encode(), digest_size=8).hexdigest()}.npz"


def give_to(tokenizer, folder: Path | None = None) -> bool:
    """Give jieba's default ``tokenizer`` its dictionary as a WordFreq: the kept arrays where this
    machine has them (True), else from jieba's own load, then kept in ``folder`` (the temporary
    folder, as jieba's cache) for the next process (False). A tokenizer with a dictionary of its
    own is loaded as jieba does."""
    if tokenizer.dictionary is not None:
        tokenizer.initialize()
        return False
    import jieba  # (its dictionary file's path)

    kept = _kept_file(
        Path(jieba.__file__).with_name("dict.txt"), Path(folder or tempfile.gettempdir())
    )
    with tokenizer.lock:
        try:
            with np.load(kept) as data:
                freq, total = WordFreq(data["hashes"], data["counts"]), int(data["total"])
            found = True
        except (OSError, KeyError, ValueError, zipfile.BadZipFile):  # none kept, or spoilt
            tokenizer.initialize()
            freq, total, found = WordFreq.of(tokenizer.FREQ), tokenizer.total, False
            _keep(kept, freq, total)
        tokenizer.FREQ, tokenizer.total, tokenizer.initialized = freq, total, True
    return found


def _keep(path: Path, freq: WordFreq, total: int) -> None:
    """Written whole or not at all (another process may be reading or writing it)."""
    hashes, counts = freq.arrays()
    try:
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".npz")
    except OSError:  # a read-only temporary folder: the next process builds them again
        return
    try:
        with os.fdopen(handle, "wb") as file:
            np.savez(file, hashes=hashes, counts=counts, total=np.int64(total))
        os.replace(temporary, path)
    except OSError:
        Path(temporary).unlink(missing_ok=True)
