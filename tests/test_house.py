"""The house holds its shape: the import layers (import-linter's contracts in pyproject.toml), no
import cycles and no import hidden in a function, thin pages and short functions in ui/, and the
settings and step tables that the other lists derive from."""

import ast
import dataclasses
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

from tests.support import ROOT
from ui.shell.registry import SCRIPTS

PACKAGES = ("ui", "measure", "scheduling", "classroom", "core")
LAYERS = {
    "kit",
    "work",
    "figures",
    "shell",
    "notebooks",
    "room",
    "views",
}  # as pyproject.toml orders
# optional packages (or a slow one), imported where they are used
OPTIONAL = {"cupy", "array_api_compat", "jieba", "redis", "gguf", "traceback"}


def _python_files(*folders):
    for folder in folders:
        yield from sorted((ROOT / folder).rglob("*.py"))


def test_the_import_contracts_hold():
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert lint, "import-linter is a dev dependency (requirements-dev.txt)"
    run = subprocess.run([lint], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:]
    assert "3 kept, 0 broken" in run.stdout


def test_ui_has_only_its_layers():
    found = {p.name for p in (ROOT / "ui").iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert found == LAYERS
    assert [p.name for p in (ROOT / "ui").glob("*.py")] == ["__init__.py"]


def _cycles(graph, modules) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), over direct imports."""
    index, low, stack, on_stack, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.find_modules_directly_imported_by(v) & modules:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(modules):
        if module not in index:
            visit(module)
    return found


def test_no_import_cycles():
    graph = grimp.build_graph(*PACKAGES)
    modules = {m for m in graph.modules if m.split(".")[0] in PACKAGES}
    modules -= {m for m in modules if graph.find_children(m)}  # a package's __init__ re-exports
    assert _cycles(graph, modules) == []


def test_the_cycle_finder_finds_a_cycle():
    class Graph:
        edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}

        def find_modules_directly_imported_by(self, module):
            return self.edges[module]

    assert _cycles(Graph(), {"a", "b", "c", "d"}) == [["a", "b", "c"]]


def test_no_import_hides_in_a_function():
    hidden = []
    for path in _python_files(*PACKAGES):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for inner in ast.walk(node):
                    if isinstance(inner, (ast.Import, ast.ImportFrom)):
                        name = getattr(inner, "module", None) or inner.names[0].name
                        if name.split(".")[0] not in OPTIONAL:
                            hidden.append(f"{path.relative_to(ROOT)}:{inner.lineno} {name}")
    assert hidden == []


def test_pages_are_thin_and_ui_functions_short():
    long_pages = [
        p.name for p in (ROOT / SCRIPTS).glob("*.py") if len(p.read_text().splitlines()) > 60
    ]
    assert long_pages == []
    long_functions = []
    for path in _python_files("ui"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > 50:
                    long_functions.append(f"{path.relative_to(ROOT)}:{node.name} {length}")
    assert long_functions == []


def test_the_settings_table_is_what_the_other_lists_read():
    from classroom.rooms import Rooms  # noqa: F401  (the store keeps whatever view it is given)
    from ui.kit.i18n import STRINGS
    from ui.kit.settings import FOLLOWED, LAYER, SETTINGS, Settings
    from ui.room.connection import VIEW_FIELDS
    from ui.work.traces import TraceKey

    drawn = [s.name for s in SETTINGS if s.widget != "page"]
    assert [f.name for f in dataclasses.fields(Settings)] == drawn
    layer = [s.name for s in SETTINGS if s.layer]
    assert [f.name for f in dataclasses.fields(TraceKey)] == [*layer, "max_tokens"]
    assert LAYER == tuple(s.in_url for s in SETTINGS if s.layer)
    assert VIEW_FIELDS == ("page", *(s.state_key for s in FOLLOWED))
    for s in SETTINGS:
        for key in (s.label, s.group, s.help):
            assert not key or key in STRINGS or s.widget in ("lang", "page"), (s.name, key)
        assert s.default is None or not s.choices or s.default in s.choices, s.name


@pytest.mark.parametrize(
    ("name", "text", "valid"),
    [("d_model", "8", True), ("d_model", "7", False), ("pe", "false", True), ("pe", "no", False),
     ("base", "1", True), ("base", "2", False), ("mask", "causal", True), ("mask", "x", False),
     ("seed", "9999", True), ("seed", "10000", False), ("sentence", "anything", True)],
)  # fmt: skip
def test_a_settings_row_says_what_a_link_may_ask(name, text, valid):
    from ui.kit.settings import BY_URL

    assert BY_URL[name].valid(text) is valid


def test_the_step_table_is_what_the_walkthrough_reads():
    import re

    from core.lessons.questions import STEP_KINDS
    from ui.kit.i18n import STRINGS
    from ui.kit.reference_lines import lines_for
    from ui.kit.settings import BY_URL
    from ui.views.walkthrough.steps import NAMES, STEPS

    assert BY_URL["step"].default == NAMES[0]
    assert set(STEP_KINDS) <= set(NAMES)
    for step in STEPS:
        for prefix in ("step_", "title_", "explain_"):
            key = f"walkthrough.{prefix}{step.name}"
            assert key in STRINGS or step.name == "mask", (prefix, step.name)
        assigned = [re.match(r"\s*(\w+) = ", line).group(1) for line in lines_for(step.symbols)]
        assert assigned == list(step.symbols), step.name
        assert callable(step.draw) and callable(step.shapes)


def _imports_of_test_modules(folder: Path) -> list[str]:
    """'path: module' for every import of a test module (tests/<kind>/test_*.py) by a file under
    ``folder``: helpers are shared through tests/support/, never from another test module."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for name in names:
                if name.startswith("tests.") and name.rsplit(".", 1)[-1].startswith("test_"):
                    found.append(f"{path.relative_to(folder.parent)}: {name}")
    return found


def test_no_test_module_imports_another():
    assert _imports_of_test_modules(ROOT / "tests") == []


def test_the_cross_import_finder_finds_one(tmp_path):
    tests = tmp_path / "tests"
    (tests / "app").mkdir(parents=True)
    (tests / "app" / "test_a.py").write_text("from tests.app.test_b import helper\n")
    (tests / "app" / "test_c.py").write_text("from tests.app import test_b\nimport tests.support\n")
    assert _imports_of_test_modules(tests) == [
        "tests/app/test_a.py: tests.app.test_b",
        "tests/app/test_c.py: tests.app.test_b",
    ]
