"""The masks page's notebook: the padded batch, the three masks made from the lengths, every step
of core/reference.py on the whole batch with the page's mask, and the mask put after the softmax
(the mistake the page shows) beside the right order. NumPy alone."""

import core
from core.lessons.mistakes import mask_after_softmax
from ui.kit.escape import markdown_text
from ui.notebooks import cells
from ui.notebooks.cells import say

FILE = "masks.ipynb"
MASKS = """n = len(tokens[0])
lengths = np.array(lengths)
allowed_key = np.arange(n)[None, :] < lengths[:, None]  # [b, n]: key j is a real token
padding = np.broadcast_to(allowed_key[:, None, :], (len(lengths), n, n))
causal = np.tril(np.ones((n, n), dtype=bool))
both = padding & causal
mask = np.broadcast_to({kind}, (len(lengths), n, n))[:, None]  # [b, 1, n, n]: every head
print(mask[:, 0].astype(int))"""
ORDER = """# the first head (the page's head {head}) of every sentence: [b, n, n]
wrong = mask_after_softmax(S_scaled[:, 0], mask[:, 0])
print({wrong})
print(np.round(wrong.sum(axis=-1), 4))
print({right})
print(np.round(A[:, 0].sum(axis=-1), 4))"""


def _weights(settings, n: int) -> core.Weights:
    """The page's weights (ui/work/traces.py batch_trace draws them the same way)."""
    config = core.AttentionConfig(
        d_model=settings.d_model, n_heads=settings.n_heads, seed=settings.seed
    )
    return core.Weights(
        **{k: core.to_numpy(M) for k, M in vars(core.init_weights(config, n=n)).items()}
    )


def build(batch, settings, kind: str, lang: str) -> bytes:
    """The notebook of ``batch`` (ui/work/traces.py's BatchTrace) with the page's mask ``kind``."""
    b, n = len(batch.tokens), len(batch.tokens[0])
    W = _weights(settings, n)
    sentences = " / ".join(
        " ".join(tokens[:length]) or "∅" for tokens, length in zip(batch.tokens, batch.lengths)
    )
    mask = say(f"batch_{kind}", lang)
    about = {"sentences": markdown_text(sentences), "b": b, "n": n, "d_model": settings.d_model,
             "heads": settings.n_heads, "seed": settings.seed, "mask": mask}  # fmt: skip
    inputs = "\n".join([
        f"tokens = {[list(tokens) for tokens in batch.tokens]!r}",
        f"lengths = {list(batch.lengths)!r}",
        cells.exact("X", batch.trace.X),
        *cells.weights(W),
        f"n_heads = {settings.n_heads}",
        "for row in tokens:\n    print(row)",
        cells.show(["X"]),
    ])  # fmt: skip
    order = ORDER.format(
        head=settings.base,
        wrong=cells.printed("print_wrong_order", lang),
        right=cells.printed("print_right_order", lang),
    )  # head 0 in the code, numbered as the page numbers it
    return cells.written([
        cells.markdown(say("masks_title", lang, **about)),
        cells.code(cells.preamble()),
        cells.markdown(say("masks_inputs", lang)),
        cells.code(inputs),
        cells.markdown(say("masks_masks", lang)),
        cells.code(MASKS.format(kind=kind)),
        *cells.attention_steps(lang, batch=True),
        cells.markdown(say("masks_order", lang)),
        cells.code(cells.source(mask_after_softmax) + "\n\n" + order),
        *cells.saved((*cells.TRACE, "wrong", "padding", "causal", "both"), lang),
    ])  # fmt: skip
