"""How the inside page names the stream's rows and the heads, numbered as the sidebar says
(``base``: from 1, as the tutorials count, or from 0, as Python does): row 0 of the stream is
the embedding, row i + 1 what layer i wrote. The URL's head codes ("6.2") always count from 1,
so that a shared link means the same head whatever its reader's numbering."""

from ui.kit.i18n import t
from ui.views.generate.next_token import label


def row_names(n_layers: int, base: int) -> list[str]:
    return [t("inside.embedding")] + [t("inside.layer", layer=i + base) for i in range(n_layers)]


def layer_numbers(n_layers: int, base: int) -> list[str]:
    """The layers' numbers alone, under a chart's bars or tiles."""
    return [str(i + base) for i in range(n_layers)]


def stream_ticks(n_layers: int, base: int) -> list[str]:
    """A chart's x axis over the stream's rows: the embedding, then each layer's number."""
    return [t("inside.embedding_tick")] + layer_numbers(n_layers, base)


def head_name(layer: int, head: int, base: int) -> str:
    """Layer and head counted from 0 in code, named as the page numbers them."""
    return t("inside.head_name", layer=layer + base, head=head + base)


def head_code(layer: int, head: int) -> str:
    """The head in the URL: "6.2", counted from 1."""
    return f"{layer + 1}.{head + 1}"


def from_code(code: str, n_layers: int, n_heads: int) -> tuple[int, int] | None:
    """(layer, head) from 0 for a code "6.2", or None when it names no head."""
    layer, _, head = code.partition(".")
    if layer.isdigit() and head.isdigit():
        pair = int(layer) - 1, int(head) - 1
        if 0 <= pair[0] < n_layers and 0 <= pair[1] < n_heads:
            return pair
    return None


def piece(model, i: int) -> str:
    """A piece as the inside page prints it: as /generate labels it (core/pretrained/piece_text.py:
    part of a character as its bytes, "E5 A4"; every space as ␣, whatever the tokenizer's own
    mark: the answer " blue" quoted as “␣blue”, a piece of spaces alone as "␣")."""
    return label(model, int(i))
