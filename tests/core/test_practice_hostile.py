"""Hostile lines for core.practice: each is refused with an error code, nothing outside the
allow-list is reached (no import, open, eval, exec, compile to code, file or process, checked by
patched builtins and by an audit hook), and fuzzed text never raises and never takes long."""

import ast
import builtins
import os
import sys
import threading
import time
import unicodedata  # noqa: F401  the parser loads it at a line's first non-ASCII name
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import core
from core.errors import MESSAGES
from core.practice import STEPS, Verdict, check
from core.practice.language import MAX_CHARS
from core.weights import init_weights

CODES = {code for code in MESSAGES if code.startswith("practice_")}
N, D_MODEL, HEADS = 6, 8, 2
WEIGHTS = init_weights(core.AttentionConfig(d_model=D_MODEL, n_heads=HEADS))
X = core.embed("the cat sat on a mat".split(), D_MODEL, seed=0)
TRACE = core.attention(X, WEIGHTS, HEADS, mask=core.causal_mask(N))

# -- the proof that nothing is reached --------------------------------------------------------

_AUDIT = threading.local()


def _audit(event: str, args) -> None:
    """Audit hooks cannot be removed; this one records only inside ``reached()`` on its thread."""
    events = getattr(_AUDIT, "events", None)
    if events is not None:
        events.append((event, repr(args)[:120]))


sys.addaudithook(_audit)


@contextmanager
def reached():
    """Calls made while the block runs: builtins.__import__/open/eval/exec/compile (compile
    passed through, with its flags, because ast.parse calls it), numpy's file and allocation
    entry points, os.system, and every audit event (CPython raises one for exec, import, open,
    compile, os.system, subprocess, socket, ctypes ...)."""
    calls = []

    def recorder(name, real=None):
        def record(*args, **kwargs):
            calls.append((name, args[:1], kwargs))
            if real is None:
                raise AssertionError(f"{name} reached")
            return real(*args, **kwargs)

        return record

    real_compile, real_import = builtins.compile, builtins.__import__

    def import_(name, *args, **kwargs):
        calls.append(("__import__", name, name in sys.modules))
        return real_import(name, *args, **kwargs)

    def compile_(source, filename, mode, flags=0, *args, **kwargs):
        calls.append(("compile", mode, flags))
        return real_compile(source, filename, mode, flags, *args, **kwargs)

    patched = [(builtins, "compile", compile_), (builtins, "__import__", import_)]
    for name in ("open", "eval", "exec"):
        patched.append((builtins, name, recorder(name, getattr(builtins, name))))
    for name in ("load", "save", "fromfile", "loadtxt", "ones", "memmap"):
        patched.append((np, name, recorder(f"np.{name}")))
    patched.append((os, "system", recorder("os.system")))
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patched]
    events, modules = [], set(sys.modules)
    try:
        for owner, name, value in patched:
            setattr(owner, name, value)
        _AUDIT.events = events
        yield calls, events
    finally:
        _AUDIT.events = None
        for owner, name, value in saved:
            setattr(owner, name, value)
    calls.extend(("new module", name, False) for name in set(sys.modules) - modules)


LIBRARY_IMPORTS = ("collections", "numpy", "unicodedata")  # ast.walk: collections.deque; the
# parser: unicodedata for a non-ASCII name (NFKC); numpy: numpy._core._methods in .all(). All
# modules already loaded (checked), the libraries' own imports, never the line's


def assert_nothing_reached(calls, events):
    """Only ast.parse's own compile (to a tree, PyCF_ONLY_AST: never code) was called, and the
    libraries' own imports of modules they had already loaded; no new module; no audit event
    but compile (CPython raises "import" only when a module is really loaded, "exec", "open",
    "os.system", "subprocess.Popen" ... when those happen)."""
    for call in calls:
        if call[0] == "__import__":
            name, loaded = call[1], call[2]
            assert loaded and name.partition(".")[0] in LIBRARY_IMPORTS, call
            continue
        assert call[0] == "compile", call
        assert call[2] & ast.PyCF_ONLY_AST, call  # a tree, never a code object
    assert {event for event, _ in events} <= {"compile"}, events


def guarded_check(step, line, limit_s=0.5) -> Verdict:
    with reached() as (calls, events):
        start = time.perf_counter()
        verdict = check(step, line, TRACE, head=1, weights=WEIGHTS)
        took = time.perf_counter() - start
    assert isinstance(verdict, Verdict)
    assert_nothing_reached(calls, events)
    assert took < limit_s, (line[:80], took)
    return verdict


def test_the_recorder_sees_what_it_guards():
    """The proof is not vacuous: inside reached() an import, an open and a compile to code are
    recorded (and refused where there is no real function behind)."""
    refused = False
    with reached() as (calls, events):
        __import__("json")
        __import__("os")
        compile("1", "<x>", "eval")
        try:
            np.ones(3)
        except AssertionError:
            refused = True
    assert refused
    assert [c[0] for c in calls] == ["__import__", "__import__", "compile", "np.ones"]
    try:
        assert_nothing_reached(calls, events)
    except AssertionError:
        pass
    else:
        raise AssertionError("an import and a compile to code went unseen")
    assert "compile" in {event for event, _ in events}


def test_a_right_answer_reaches_nothing_either():
    assert guarded_check("S", "Q @ K.T").ok
    assert guarded_check("A", "softmax(S_masked, axis=-1)").ok


# -- each hostile line ------------------------------------------------------------------------

HOSTILE = {
    "__import__('os')": "practice_forbidden",
    "__import__('os').system('true')": "practice_forbidden",
    "().__class__.__bases__": "practice_forbidden",
    "().__class__.__bases__[0].__subclasses__()": "practice_forbidden",
    "X.__class__": "practice_forbidden",
    "X.__dict__": "practice_forbidden",
    "X.__class__.__mro__[-1].__subclasses__()": "practice_forbidden",
    "Q.T.T.T.T.__class__": "practice_forbidden",
    "Q.T.T.T.T.__class__.__init__.__globals__": "practice_forbidden",
    "np.__dict__": "practice_forbidden",
    "np.load('x')": "practice_forbidden",
    "np.load('/etc/passwd', allow_pickle=True)": "practice_forbidden",
    "np.ones(10**10)": "practice_forbidden",
    "np.lib": "practice_forbidden",
    "np.sys.modules": "practice_forbidden",
    "softmax.__globals__": "practice_unknown_name",
    "softmax.__globals__['__builtins__']": "practice_unknown_name",
    "getattr(X, 'T')": "practice_forbidden",
    "open('/etc/passwd')": "practice_forbidden",
    "open('/etc/passwd').read()": "practice_forbidden",
    "exec('1')": "practice_forbidden",
    "eval('1')": "practice_forbidden",
    "compile('1', '', 'eval')": "practice_forbidden",
    "globals()": "practice_forbidden",
    "__builtins__": "practice_unknown_name",
    "vars()": "practice_forbidden",
    "breakpoint()": "practice_forbidden",
    "'os'": "practice_forbidden",
    "b'os'": "practice_forbidden",
    "f'{X}'": "practice_forbidden",
    "f'{X.__class__}'": "practice_forbidden",
    "(S := Q @ K.T)": "practice_forbidden",
    "X if 1 else 2": "practice_forbidden",
    "np.where(*X)": "practice_forbidden",
    "softmax(S_masked, **{'axis': -1})": "practice_forbidden",
    "softmax(S_masked, axis=__import__('os'))": "practice_keyword",
    "X.sum(axis=0, out=X)": "practice_forbidden",
    "np.exp(X, out=X)": "practice_forbidden",
    "lambda: 1": "practice_forbidden",
    "(lambda: __import__('os'))()": "practice_forbidden",
    "(lambda x: x)(X)": "practice_forbidden",
    "[x for x in X]": "practice_forbidden",
    "{x for x in X}": "practice_forbidden",
    "{x: x for x in X}": "practice_forbidden",
    "(x for x in X)": "practice_forbidden",
    "sum(x for x in ().__class__.__bases__)": "practice_forbidden",
    "[X, X]": "practice_forbidden",
    "(X, X)": "practice_forbidden",
    "{'a': X}": "practice_forbidden",
    "X[0]": "practice_forbidden",
    "X[:, 0]": "practice_forbidden",
    "X and Q": "practice_forbidden",
    "not X": "practice_forbidden",
    "~mask": "practice_forbidden",
    "X // 2": "practice_forbidden",
    "X % 2": "practice_forbidden",
    "X is X": "practice_forbidden",
    "1 < X < 2": "practice_forbidden",
    "None": "practice_forbidden",
    "...": "practice_forbidden",
    "1j": "practice_forbidden",
    "9**9**9": "practice_power",
    "10**10**10": "practice_power",
    "X ** X": "practice_power",
    "2 ** 17": "practice_power",
    "1e400": "practice_number",
    "10000000000000000": "practice_number",
    "X; import os": "practice_syntax",
    "import os": "practice_syntax",
    "X\nimport os": "practice_syntax",
    "S = Q @ K.T = 1": "practice_syntax",
    "\u200bX": "practice_syntax",  # zero-width space
    "X\u200d": "practice_syntax",  # zero-width joiner
    "X\x00": "practice_syntax",
    "'\ud800'": "practice_syntax",  # a lone surrogate
    "\u202eX": "practice_syntax",  # right-to-left override
    "Ｘ.__class__": "practice_forbidden",  # fullwidth X: Python's NFKC makes it X
    "＿＿import＿＿('os')": "practice_syntax",  # a fullwidth low line cannot start a name
    "ｅｘｅｃ('1')": "practice_forbidden",  # fullwidth letters: exec, refused like exec
    "__ｉｍｐｏｒｔ__('os')": "practice_forbidden",
    "np.ｌｏａｄ('x')": "practice_forbidden",
    "(" * 10_000 + "X" + ")" * 10_000: "practice_too_long",
    "(" * 25 + "X" + ")" * 25: "practice_too_deep",
    "[" * 20 + "X" + "]" * 20: "practice_forbidden",
    "[" * 30 + "X" + "]" * 30: "practice_too_deep",
    "{" * 60 + "X" + "}" * 60: "practice_too_deep",
    "-" * 300 + "X": "practice_too_long",
    "-" * 150 + "X": "practice_too_many_parts",
    "-" * 40 + "X": "practice_too_deep",
    "not " * 30 + "X": "practice_too_deep",
    "not " * 70 + "X": "practice_too_many_parts",
    "X" + ".T" * 40: "practice_too_deep",
    "+".join(["X"] * 140): "practice_too_many_parts",
    "+".join(["n"] * 30): "practice_too_deep",
    "X" * (MAX_CHARS + 1): "practice_too_long",
    "X + " * 1000 + "X": "practice_too_long",
    "x" * 10_000_000: "practice_too_long",  # a line of 10 MB
    "": "practice_empty",
    "   \n\t ": "practice_empty",
}


def _short(line: str) -> str:
    return repr(line[:40]) + (f"… ({len(line)} chars)" if len(line) > 40 else "")


@pytest.mark.filterwarnings("ignore::SyntaxWarning", "ignore::DeprecationWarning")
@pytest.mark.parametrize("line", list(HOSTILE), ids=[_short(line) for line in HOSTILE])
def test_a_hostile_line_is_refused_and_reaches_nothing(line):
    for step in ("S", "A", "output"):
        verdict = guarded_check(step, line)
        assert not verdict.ok and verdict.value is None, verdict
        assert verdict.error == HOSTILE[line], (step, verdict)
        assert verdict.error in CODES


def test_the_hostile_lines_refuse_in_every_step():
    for step in STEPS:
        for line in ("__import__('os')", "X.__class__", "9**9**9", "(" * 10_000, "lambda: 0"):
            verdict = guarded_check(step, line)
            assert verdict.error in CODES and not verdict.ok


def test_fullwidth_letters_are_python_s_own_names():
    """Python's parser folds fullwidth and mathematical letters to ASCII (NFKC), so 'Ｑ @ Ｋ.T'
    is Q @ K.T: harmless, it reaches the same allow-list and nothing else."""
    assert guarded_check("S", "Ｑ @ Ｋ.T").ok
    assert guarded_check("S", "𝐐 @ 𝐊.T").ok
    assert guarded_check("S", "Ｑ @ Ｋ.Ｔ").ok


@pytest.mark.parametrize(
    "step, line",
    [("S_masked", "np.where(mask, Q @ K.T, -np.inf)"), ("S", "np.where(mask, Q @ K.T, -np.inf)"),
     ("A", "softmax(np.where(mask, S_scaled, -np.inf), axis=-1)"), ("S", "-mask"),
     ("S", "mask - mask"), ("S", "(X < 1) - (X < 2)"), ("A", "S_masked @ S_masked"),
     ("S", "np.exp(X * 1000) @ np.exp(X * 1000).T"), ("A", "softmax(S_masked * np.inf, axis=-1)"),
     ("S", "np.inf - np.inf"), ("S", "X.shape"), ("S", "1 < 2"), ("S", "True - True"),
     ("S", "X.sum()"), ("S", "(X * 1e15) @ (X * 1e15).T"), ("S", "1e15 ** 16 * 1e15 ** 16"),
     ("A", "np.sqrt(S_masked)"), ("A", "S_masked ** -1"), ("S", "Ｘ")],
)  # fmt: skip
def test_lines_that_are_fine_to_run_give_a_value_never_an_exception(step, line):
    """Allowed lines with odd values (−∞, inf, nan, booleans, a shape) are values, not crashes:
    no exception and no RuntimeWarning (pytest makes those errors)."""
    verdict = guarded_check(step, line)
    assert verdict.error is None and verdict.value is not None


# -- fuzzing ----------------------------------------------------------------------------------

NAMES = ("X", "Q", "K", "V", "S", "S_scaled", "S_masked", "A", "O", "O_heads", "concat",
         "mask", "d_k", "d_v", "n", "W_Q", "W_K", "W_V", "W_O", "np", "softmax", "os", "sys",
         "x")  # fmt: skip
DUNDERS = ("__class__", "__bases__", "__subclasses__", "__globals__", "__builtins__", "__import__",
           "__dict__", "__code__", "__getattribute__", "__mro__", "__init__", "__loader__",
           "__reduce__", "__call__", "__self__", "__func__")  # fmt: skip
CALLS = ("np.exp", "np.sqrt", "np.where", "np.matmul", "np.transpose", "np.maximum",
         "np.concatenate", "np.load", "np.ones", "np.save", "np.lib", "np.ctypeslib", "getattr",
         "open", "exec", "eval", "compile", "globals", "locals", "vars", "print", "input",
         "breakpoint", "help", "type", "object")  # fmt: skip
SYMBOLS = ("@", "+", "-", "*", "/", "**", "//", "%", "~", "&", "|", "^", "<<", ">>", "<", ">",
           "==", "!=", "<=", ":=", "=", ",", ".", ":", ";", "(", ")", "[", "]", "{", "}", "(",
           ")", ".T", ".shape", ".sum", ".max", ".mean", "axis=", "keepdims=", "*", "**",
           "lambda", "for", "in", "if", "else", "not", "and", "or", "is", "import", "await",
           "yield", "\n", "\\", "#", "'", '"', "f'", "b'", "`", "$", "!", "?")  # fmt: skip
NUMBERS = ("0", "1", "-1", "2", "9", "10", "16", "17", "0.5", "1e308", "1e400", "9**9", "1j",
           "10**10", "0x10", "1_000", "True", "False", "None", "...", "np.inf", "-np.inf",
           "'os'", "\"/etc/passwd\"", "b'x'", "f'{X}'")  # fmt: skip
ODD = ("\u200b", "\u200d", "\ufeff", "\x00", "\ud800", "\u202e", "Ｘ", "＿", "𝐗", "ℌ", "é", "\t",
       "\r", "\x0c", "\u2028", "\u00a0")  # fmt: skip
TOKENS = st.sampled_from(NAMES + DUNDERS + CALLS + SYMBOLS + NUMBERS + ODD)
GRAMMAR = st.lists(TOKENS, max_size=60).flatmap(
    lambda tokens: st.sampled_from(("", " ")).map(lambda sep: sep.join(tokens))
)
FUZZ = settings(
    deadline=None,
    max_examples=300,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _fuzzed(step, line):
    verdict = guarded_check(step, line)
    assert verdict.error is None or verdict.error in CODES
    if verdict.error is not None:
        assert verdict.value is None and not verdict.ok
    return verdict


@pytest.mark.filterwarnings("ignore::SyntaxWarning", "ignore::DeprecationWarning")
@FUZZ
@given(step=st.sampled_from(STEPS), line=GRAMMAR)
def test_fuzz_a_grammar_of_tokens(step, line):
    _fuzzed(step, line)


@pytest.mark.filterwarnings("ignore::SyntaxWarning", "ignore::DeprecationWarning")
@FUZZ
@given(step=st.sampled_from(STEPS), line=st.text(max_size=400))
def test_fuzz_arbitrary_text(step, line):
    _fuzzed(step, line)


@pytest.mark.filterwarnings("ignore::SyntaxWarning", "ignore::DeprecationWarning")
@settings(deadline=None, max_examples=150)
@given(
    step=st.sampled_from(STEPS),
    line=st.text(st.characters(codec=None, categories=None), max_size=200),
)
def test_fuzz_any_code_point_including_surrogates(step, line):
    _fuzzed(step, line)


@st.composite
def expressions(draw, depth=0):
    """Well-formed allowed-looking expressions, nested at random, so the walker's evaluation
    (not only the parser's refusal) is fuzzed."""
    leaf = st.sampled_from(NAMES[:19] + ("1", "2.5", "0", "-1", "np.inf", "16", "1e15"))
    if depth > 4 or draw(st.integers(0, 3)) == 0:
        return draw(leaf)
    a = draw(expressions(depth + 1))
    kind = draw(st.integers(0, 5))
    if kind == 0:
        b = draw(expressions(depth + 1))
        op = draw(st.sampled_from(("@", "+", "-", "*", "/", "**", "<", "==")))
        return f"({a} {op} {b})"
    if kind == 1:
        fn = draw(st.sampled_from(("np.exp", "np.sqrt", "np.transpose", "-")))
        return f"{fn}({a})"
    if kind == 2:
        b, c = draw(expressions(depth + 1)), draw(expressions(depth + 1))
        fn = draw(st.sampled_from(("np.where", "np.maximum", "np.matmul", "np.concatenate")))
        return f"{fn}({a}, {b}, {c})" if fn == "np.where" else f"{fn}({a}, {b})"
    if kind == 3:
        axis = draw(st.sampled_from(("-1", "0", "1", "2", "-3")))
        fn = draw(st.sampled_from(("softmax", "np.concatenate")))
        return f"{fn}({a}, axis={axis})"
    if kind == 4:
        method = draw(st.sampled_from(("sum", "max", "mean")))
        keep = draw(st.sampled_from(("", ", keepdims=True", ", keepdims=False")))
        return f"({a}).{method}(axis={draw(st.sampled_from(('0', '-1', '1')))}{keep})"
    return draw(st.sampled_from((f"({a}).T", f"({a}).shape[0]", f"({a}).shape[-1]")))


@FUZZ
@given(step=st.sampled_from((*STEPS, "output", "output")), line=expressions())
def test_fuzz_allowed_expressions_evaluate_or_refuse(step, line):
    verdict = _fuzzed(step, line)
    if verdict.error is None:
        assert isinstance(verdict.value, np.ndarray) and verdict.value.dtype == np.float64
