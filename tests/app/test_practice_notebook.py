"""Practice at home (issue 66, item 6): /practice's notebook, made in each language, is the
exercise, not its answers. Run in a real kernel (nbclient) with the right line filled into each
empty cell, every check says right; with wrong ones, each names the mistake core.practice's own
checker names for the same line (or says what differs), and the steps after a wrong one are
still checked on their own. Left empty, it runs top to bottom and says each step is unwritten.
The file holds no solution line; a Chinese notebook prints no English label; /practice offers
it in both languages, at the page's width, and not on the projector."""

import json

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

from core import practice  # noqa: E402
from tests.support.app import run_app  # noqa: E402
from tests.support.notebooks import english_labels  # noqa: E402
from ui.kit.i18n import t  # noqa: E402
from ui.kit.settings import Settings  # noqa: E402
from ui.notebooks import practice as notebook  # noqa: E402
from ui.notebooks.cells import say  # noqa: E402
from ui.work.traces import TraceKey, sentence_trace  # noqa: E402

RIGHT = {
    "Q": "X @ W_Q",
    "K": "X @ W_K",
    "V": "X @ W_V",
    "S": "Q @ K.T",
    "S_scaled": "S / np.sqrt(d_k)",
    "S_masked": "np.where(mask, S_scaled, -np.inf)",
    "A": "softmax(S_masked, axis=-1)",
    "O": "A @ V",
    "concat": "np.concatenate(O_heads, axis=1)",
    "output": "concat @ W_O",
}
# (the wrong line, what the check says): a named mistake, else how the result differs
WRONG = {
    "Q": ("X @ W_K", "wrong_matrix"),
    "K": ("(X @ W_K).T", "transposed"),
    "V": ("2 * (X @ W_V)", "differs"),
    "S": ("Q @ Q.T", "wrong_matrix"),
    "S_scaled": ("S / d_k", "scale_d_k"),
    "S_masked": ("np.where(mask, S_scaled, 0)", "mask_zero"),
    "A": ("softmax(S_masked, axis=0)", "wrong_axis"),
    "O": ("A.T @ V", "transposed"),
    "concat": ("O_heads", "shape"),
    "output": ("concat @ W_O.T", "differs"),
}
ODDER = {  # what is not a mistake of the catalogue
    "V": ("'V'", "not_numbers"),
    "S_masked": ("S_scaled", "infinite"),
    "output": ("3.0", "not_a_matrix"),
}
SOLUTION = (
    *RIGHT.values(),
    "np.sqrt(d_k)",
    "np.where(mask",
    "softmax(S_masked",
    "@ K.T",
    "A @ V",
    "@ W_O",
    "concatenate(O_heads",
)


def _data(lang: str, mask: str = "causal", n_heads: int = 2):
    settings = Settings(lang=lang, sentence="这 部 电影 很 好看", d_model=8, n_heads=n_heads,
                        mask=mask)  # fmt: skip
    return settings, sentence_trace(TraceKey.of(settings))


def _book(lang: str, head: int = 1, mask: str = "causal"):
    settings, data = _data(lang, mask)
    made = notebook.build(data, settings, lang, head)
    book = nbformat.reads(made.decode("utf-8"), as_version=4)
    nbformat.validate(book)
    return book, made, data


def _run(book, lines: dict, lang: str, folder, last: str = "") -> dict:
    """The book with ``lines`` ({step: its right-hand side}) in the learners' empty cells, run
    top to bottom; {step: what its check printed} ('' for ``last``'s cell: what it printed)."""
    for cell in book.cells:
        for step, line in lines.items():
            if cell.cell_type == "code" and cell.source == say("practice_write", lang, name=step):
                cell.source = f"{step} = {line}"
    if last:
        book.cells.append(nbformat.v4.new_code_cell(last))
    nbclient.NotebookClient(book, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(folder)}}).execute()  # fmt: skip
    said = {}
    for cell in book.cells:
        if cell.cell_type == "code":
            text = "".join(o.get("text", "") for o in cell.get("outputs", []))
            errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
            assert not errors, errors
            step = next((s for s in practice.STEPS if cell.source == f'check("{s}", {s})'), None)
            said[step or ("" if cell.source == last else None)] = text.strip()
    return said


def _expected(step: str, kind: str, lang: str, data, head: int) -> str:
    """What the check should print for a wrong line of ``kind`` (a differs: up to its number)."""
    right = practice.expected(step, data.trace, head).shape
    shape = "[" + " × ".join(map(str, right)) + "]"
    if kind in practice.MISTAKES:
        return say("print_mistake", lang, mistake=kind, why=t(f"practice.mistake_{kind}", lang))
    if kind == "shape":
        yours = "[" + " × ".join(map(str, data.trace.O.shape)) + "]"  # concat = O_heads
        return say("print_shape", lang, name=step, yours=yours, right=shape)
    if kind == "differs":
        return say("print_differs", lang, diff="{diff}").split("{diff}")[0]
    if kind == "not_a_matrix":
        return say("print_not_a_matrix", lang, name=step, right=shape)
    return say(f"print_{kind}", lang, name=step)


@pytest.mark.parametrize(("lang", "mask", "head"), [("en", "causal", 1), ("zh", "none", 0)])
def test_the_right_lines_are_right_at_every_step(tmp_path, lang, mask, head):
    book, _, data = _book(lang, head, mask)
    said = _run(book, RIGHT, lang, tmp_path)
    word = "正确！你的" if lang == "zh" else "Right! Your"
    for step in practice.STEPS:
        assert said[step].startswith(f"{word} {step} "), (step, said[step])
        # the same line is right by the app's own checker (the notebook checks what the page does)
        assert practice.check(step, RIGHT[step], data.trace, head, data.W).ok, step
    assert not (lang == "zh" and english_labels(book))


@pytest.mark.parametrize(("lang", "wrong_at"), [("en", 0), ("zh", 1), ("en", "odder")])
def test_a_wrong_line_is_named_and_the_next_step_is_checked_on_its_own(tmp_path, lang, wrong_at):
    """Every other step wrong (the others right: each check starts from the right arrays), the
    mistake named as core.practice.check names it for the same line."""
    book, _, data = _book(lang)
    if wrong_at == "odder":
        wrong = ODDER
    else:
        wrong = {s: WRONG[s] for i, s in enumerate(practice.STEPS) if i % 2 == wrong_at}
    lines = {step: wrong[step][0] if step in wrong else RIGHT[step] for step in practice.STEPS}
    said = _run(book, lines, lang, tmp_path, last="print(sorted(yours), type(yours['V']))")
    right = "正确！你的" if lang == "zh" else "Right! Your"
    for step in practice.STEPS:
        if step not in wrong:
            assert said[step].startswith(f"{right} {step} "), (step, said[step])
            continue
        line, kind = wrong[step]
        assert said[step].startswith(_expected(step, kind, lang, data, 1)), (step, said[step])
        if kind in practice.MISTAKES:  # the page names the same mistake for the same line
            assert practice.check(step, line, data.trace, 1, data.W).mistake == kind, step
            assert f"{kind}" in said[step] and t(f"practice.mistake_{kind}", lang) in said[step]
    assert said[""].startswith(repr(sorted(practice.STEPS)))  # what the learner wrote, kept
    assert ("<class 'str'>" in said[""]) == (wrong_at == "odder")


def test_left_empty_it_runs_top_to_bottom_and_says_each_step_is_unwritten(tmp_path):
    book, _, _ = _book("zh")
    said = _run(book, {}, "zh", tmp_path)
    for step in practice.STEPS:
        assert said[step] == say("print_not_written", "zh", name=step), step


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("mask", ["none", "causal"])
def test_the_file_holds_the_exercise_not_its_answers(lang, mask):
    book, made, data = _book(lang, 1, mask)
    text = made.decode("utf-8")
    sources = "\n".join(cell.source for cell in book.cells)
    for piece in SOLUTION:
        assert piece not in sources and json.dumps(piece)[1:-1] not in text, piece
    imports = [line for line in sources.splitlines() if "import " in line]
    assert imports == ["import base64", "import math", "import numpy as np"]  # never the app's
    # each step: what to write (in the language), the learner's empty cell, its check
    for step in practice.STEPS:
        at = next(i for i, c in enumerate(book.cells) if c.source == f'check("{step}", {step})')
        before, empty = book.cells[at - 2], book.cells[at - 1]
        assert before.cell_type == "markdown" and empty.source == say("practice_write", lang,
                                                                      name=step)  # fmt: skip
        task = t(f"practice.task_{step}", lang, h="2", shape="[", first="1").split("[")[0]
        assert task in before.source, step
    assert ("# 在这里写 S\n" in sources) == (lang == "zh")
    assert ("自己写注意力" in book.cells[0].source) == (lang == "zh")
    assert not (lang == "zh" and english_labels(book))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_practice_offers_its_notebook_but_not_on_the_projector(lang):
    label = t("notebook.practice_download", lang)
    for step in ("A", "output"):  # a step with heads, and one without
        at = run_app("practice", lang=lang, task=step)
        buttons = [b for b in at.get("download_button") if label in str(b.proto)]
        assert len(buttons) == 1 and not at.exception, step
        assert t("notebook.download", lang) in label  # named as every page's notebook
        folded = [b for e in at.expander for b in e.get("download_button")]
        assert not [b for b in folded if label in str(b.proto)]
    at = run_app("practice", lang=lang, big="true")
    assert not at.exception
    assert not [b for b in at.get("download_button") if label in str(b.proto)]
