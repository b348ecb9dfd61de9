"""What the notebooks' tests share (tests/app/test_notebook.py, tests/deploy/
test_notebook_install.py): the labels a notebook's prints say, read from its code, and the text
/generate's notebook should print for some tokens, by the page's rule."""

import ast

from core.pretrained import piece_text
from tests.support.wording import english_words


def _strings(node, leave=None) -> list[str]:
    """Every string constant under ``node`` (an f-string's constant parts too) but ``leave``."""
    return [part.value for part in ast.walk(node) if part is not leave
            and isinstance(part, ast.Constant) and isinstance(part.value, str)]  # fmt: skip


def _prints(node) -> list:
    """Every print (or SystemExit) under ``node``."""
    return [call for call in ast.walk(node) if isinstance(call, ast.Call)
            and getattr(call.func, "id", "") in ("print", "SystemExit")]  # fmt: skip


def _said(node) -> list[str]:
    """What every print (or SystemExit) under ``node`` says in its own strings."""
    return [text for call in _prints(node) for text in _strings(call)]


def _code(book) -> list:
    return [ast.parse(cell.source) for cell in book.cells if cell.cell_type == "code"]


def code_names(book) -> set[str]:
    """Every name the notebook's code uses: its variables, functions, attributes, arguments."""
    return {
        getattr(node, a)
        for tree in _code(book)
        for node in ast.walk(tree)
        for a in ("id", "attr", "name", "arg")
        if isinstance(getattr(node, a, None), str)
    }


def printed_labels(book) -> list[str]:
    """What a notebook's prints say of their own: the strings in its print calls, and every
    string of a function that prints (a label it builds, "（还差 1 个字节：E7 9C）") but its
    docstring; less an array's name printed beside its shape (the code's name, not a label)."""
    labels, names = [], code_names(book)
    for tree in _code(book):
        labels += _said(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and _prints(node):
                first = node.body[0]
                docstring = first.value if isinstance(first, ast.Expr) else None
                labels += _strings(node, docstring)
    return [label for label in labels if label.strip() not in names]


def english_labels(book) -> set[str]:
    """The English words a notebook's prints say (none, in a Chinese notebook), less a constant
    of its code named in capitals (APP, the folder to set)."""
    labels, names = printed_labels(book), code_names(book)
    words = {word for label in labels for word in english_words(label)}
    return {word for word in words if not (word.isupper() and word in names)}


def said_text(tokenizer, tokens, lang: str) -> str:
    """A text as the notebook should print it, by the page's rule (the same held-back bytes and
    missing count the page says), in ``lang``."""
    w = piece_text.written(tokenizer, tokens)
    if not w.missing:
        return repr(w.text)
    tail = piece_text.hex_bytes(w.tail)
    if lang == "zh":
        return f"{w.text!r}（还差 {w.missing} 个字节：{tail}）"
    more = "1 more is" if w.missing == 1 else f"{w.missing} more are"
    return f"{w.text!r} (its last character has the bytes {tail}; {more} to come)"
