"""How the inside page names the stream's rows and the heads: counted from 1, as a learner does
(row 0 of the stream is the embedding, row i what layer i wrote)."""

from ui.kit.i18n import t
from ui.views.generate.next_token import label


def row_names(n_layers: int) -> list[str]:
    return [t("inside.embedding")] + [t("inside.layer", layer=i) for i in range(1, n_layers + 1)]


def head_name(layer: int, head: int) -> str:
    """Layer and head counted from 0 in code, named from 1: "L6 H2"."""
    return t("inside.head_name", layer=layer + 1, head=head + 1)


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
    """A piece as the inside page prints it: as /generate labels it, a piece of spaces alone
    written with SentencePiece's ▁ so that a cell or a bar never looks empty."""
    text = label(model, int(i))
    return text.replace(" ", "▁") if not text.strip() else text
