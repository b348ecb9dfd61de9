"""The learner's line of NumPy, evaluated without Python: parsed by ``ast`` as one expression and
walked by this module over an allow-list. Learner text is never given to eval, exec or compile.

What a line may hold (anything else is refused before a single operation runs):
- the names it is given (X, W_Q, Q, K, S, ..., d_k, n), numbers, ``np.inf``, True/False;
- ``@ + - * / **`` (the exponent a number of at most MAX_POWER in size), unary ``-``, comparisons;
- ``.T``, ``.shape`` and ``.shape[i]``; ``.sum/.max/.mean(axis=, keepdims=)``;
- ``np.exp, np.sqrt, np.where, np.matmul, np.transpose, np.maximum, np.concatenate(axis=)``;
- ``softmax(x, axis=)``.

Bounds: MAX_CHARS characters, MAX_NODES syntax nodes, MAX_DEPTH levels; every result's size is
known before it is made (no operation here can make an array larger than MAX_ELEMENTS), and the
whole line has MAX_SECONDS. A line that breaks one gets an InputError; nothing else happens.
"""

import ast
import math
import time
from dataclasses import dataclass

import numpy as np

from core.errors import InputError
from core.softmax import softmax_along

MAX_CHARS = 300
MAX_NODES = 120
MAX_DEPTH = 24
MAX_ELEMENTS = 4_000_000  # any one array a line makes (a 512 × 512 map is 262,144)
MAX_POWER = 16
MAX_SECONDS = 2.0

NP_FUNCTIONS = ("exp", "sqrt", "where", "matmul", "transpose", "maximum", "concatenate")
METHODS = ("sum", "max", "mean")
KEYWORDS = ("axis", "keepdims")
BINARY = {
    ast.MatMult: "@", ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**",
}  # fmt: skip
COMPARE = {ast.Lt: np.less, ast.LtE: np.less_equal, ast.Gt: np.greater,
           ast.GtE: np.greater_equal, ast.Eq: np.equal, ast.NotEq: np.not_equal}  # fmt: skip


@dataclass(frozen=True)
class Operand:
    """A value with the text it came from (for a shape error said in the learner's terms)."""

    value: object  # an ndarray, a float, a bool, or a shape (a tuple of ints)
    text: str


def _depth(node, limit: int) -> int:
    """The tree's depth, refusing past ``limit`` (without recursion: a hostile line's nesting
    never reaches Python's stack)."""
    deepest, todo = 0, [(node, 1)]
    while todo:
        node, depth = todo.pop()
        deepest = max(deepest, depth)
        if deepest > limit:
            raise InputError("practice_too_deep", limit=limit)
        todo.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


def parse(text: str) -> ast.Expression:
    """The line as one expression's tree, within the bounds; a leading ``name =`` dropped."""
    if len(text) > 4 * MAX_CHARS:  # refused before any copy of a huge paste is made
        raise InputError("practice_too_long", n=len(text), limit=MAX_CHARS)
    line = text.strip()
    if not line:
        raise InputError("practice_empty")
    if len(line) > MAX_CHARS:
        raise InputError("practice_too_long", n=len(line), limit=MAX_CHARS)
    if line.count("(") + line.count("[") > MAX_DEPTH:  # before the parser sees deep nesting
        raise InputError("practice_too_deep", limit=MAX_DEPTH)
    target, sep, rest = line.partition("=")
    if sep and target.strip().isidentifier() and not rest.startswith("="):
        line = rest.strip()  # "S = Q @ K.T": the value written
    try:
        tree = ast.parse(line, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        raise InputError("practice_syntax") from None
    nodes = sum(1 for _ in ast.walk(tree))
    if nodes > MAX_NODES:
        raise InputError("practice_too_many_parts", n=nodes, limit=MAX_NODES)
    _depth(tree, MAX_DEPTH)
    return tree


def shape_text(shape) -> str:
    return "×".join(str(s) for s in shape) if shape else "1"


class Walker:
    """Evaluates an allowed tree over ``names`` (their values NumPy arrays or numbers)."""

    def __init__(self, names: dict):
        self.names = names
        self.deadline = time.monotonic() + MAX_SECONDS

    def run(self, tree: ast.Expression):
        with np.errstate(all="ignore"):  # inf and nan are values here, never warnings
            return self.value_of(tree.body).value

    # -- the walk ---------------------------------------------------------------------------

    def value_of(self, node) -> Operand:
        if time.monotonic() > self.deadline:
            raise InputError("practice_too_slow", seconds=MAX_SECONDS)
        method = getattr(self, f"_{type(node).__name__}", None)
        if method is None:
            raise InputError("practice_forbidden", what=_kind(node))
        return method(node)

    def _Constant(self, node) -> Operand:
        value = node.value
        if isinstance(value, bool):
            return Operand(value, repr(value))
        if type(value) is int and abs(value) > 10**15:
            raise InputError("practice_number", limit="10¹⁵")
        if isinstance(value, int | float) and math.isfinite(value) and abs(value) <= 1e15:
            return Operand(float(value), ast.unparse(node))
        if isinstance(value, float):
            raise InputError("practice_number", limit="10¹⁵")
        raise InputError("practice_forbidden", what=_kind(node))

    def _Name(self, node) -> Operand:
        if node.id not in self.names:
            raise InputError("practice_unknown_name", name=node.id[:40],
                             names=", ".join(self.names))  # fmt: skip
        return Operand(self.names[node.id], node.id)

    def _UnaryOp(self, node) -> Operand:
        inner = self.value_of(node.operand)
        if isinstance(node.op, ast.USub):
            return Operand(-self._number_or_array(inner), f"-{inner.text}")
        if isinstance(node.op, ast.UAdd):
            return inner
        raise InputError("practice_forbidden", what=_kind(node.op))

    def _BinOp(self, node) -> Operand:
        op = BINARY.get(type(node.op))
        if op is None:
            raise InputError("practice_forbidden", what=_kind(node.op))
        left, right = self.value_of(node.left), self.value_of(node.right)
        a, b = self._number_or_array(left), self._number_or_array(right)
        text = f"{left.text} {op} {right.text}"
        if op == "@":
            return Operand(self._matmul(left, right), text)
        if op == "**":
            if not isinstance(b, float) or abs(b) > MAX_POWER:
                raise InputError("practice_power", limit=MAX_POWER)
        self._fits(np.shape(a), np.shape(b), left, right, op)
        with np.errstate(all="ignore"):
            value = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide,
                     "**": np.power}[op](a, b)  # fmt: skip
        return Operand(value, text)

    def _Compare(self, node) -> Operand:
        if len(node.ops) != 1:
            raise InputError("practice_forbidden", what="a chain of comparisons")
        compare = COMPARE.get(type(node.ops[0]))
        if compare is None:
            raise InputError("practice_forbidden", what=_kind(node.ops[0]))
        left, right = self.value_of(node.left), self.value_of(node.comparators[0])
        a, b = self._number_or_array(left), self._number_or_array(right)
        self._fits(np.shape(a), np.shape(b), left, right, "<")
        return Operand(compare(a, b), f"{left.text} ? {right.text}")

    def _Attribute(self, node) -> Operand:
        if isinstance(node.value, ast.Name) and node.value.id == "np":
            if node.attr == "inf":
                return Operand(math.inf, "np.inf")
            raise InputError("practice_forbidden", what=f"np.{node.attr[:40]}")
        inner = self.value_of(node.value)
        array = inner.value
        if not isinstance(array, np.ndarray):
            raise InputError("practice_forbidden", what=f".{node.attr[:40]}")
        if node.attr == "T":
            return Operand(array.T, f"{inner.text}.T")
        if node.attr == "shape":
            return Operand(tuple(int(s) for s in array.shape), f"{inner.text}.shape")
        raise InputError("practice_forbidden", what=f".{node.attr[:40]}")

    def _Subscript(self, node) -> Operand:
        """Only ``<array>.shape[i]``, i a whole number."""
        shape = self.value_of(node.value)
        index = node.slice
        negative = isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub)
        constant = index.operand if negative else index
        if not (isinstance(shape.value, tuple) and isinstance(constant, ast.Constant)
                and type(constant.value) is int):  # fmt: skip
            raise InputError("practice_forbidden", what="[…]")
        i = -constant.value if negative else constant.value
        if not -len(shape.value) <= i < len(shape.value):
            raise InputError("practice_axis", axis=i, ndim=len(shape.value))
        return Operand(float(shape.value[i]), f"{shape.text}[{i}]")

    def _Call(self, node) -> Operand:
        if node.args and any(isinstance(a, ast.Starred) for a in node.args):
            raise InputError("practice_forbidden", what="*args")
        options = self._keywords(node)
        func = node.func
        if isinstance(func, ast.Name) and func.id == "softmax":
            return self._softmax(node, options)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                and func.value.id == "np":  # fmt: skip
            if func.attr not in NP_FUNCTIONS:
                raise InputError("practice_forbidden", what=f"np.{func.attr[:40]}")
            return self._np(func.attr, node, options)
        if isinstance(func, ast.Attribute) and func.attr in METHODS:
            inner = self.value_of(func.value)
            if node.args or not isinstance(inner.value, np.ndarray):
                raise InputError("practice_forbidden", what=f".{func.attr}(…)")
            return Operand(
                self._reduce(func.attr, inner.value, options), f"{inner.text}.{func.attr}()"
            )
        raise InputError("practice_forbidden", what=_call_name(func))

    # -- the operations ---------------------------------------------------------------------

    def _keywords(self, node) -> dict:
        options = {}
        for keyword in node.keywords:
            if keyword.arg not in KEYWORDS:
                raise InputError("practice_forbidden", what=f"{keyword.arg}=")
            value = keyword.value
            negative = isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub)
            constant = value.operand if negative else value
            if not isinstance(constant, ast.Constant):
                raise InputError("practice_keyword", name=keyword.arg)
            v = constant.value
            if keyword.arg == "axis" and type(v) is int:
                options["axis"] = -v if negative else v
            elif keyword.arg == "keepdims" and type(v) is bool and not negative:
                options["keepdims"] = v
            else:
                raise InputError("practice_keyword", name=keyword.arg)
        return options

    def _arrays(self, node, count: int) -> list[Operand]:
        if len(node.args) != count:
            raise InputError("practice_arguments", name=_call_name(node.func), n=count)
        return [self.value_of(a) for a in node.args]

    def _axis(self, array, options, default=None):
        axis = options.get("axis", default)
        if axis is not None and not -array.ndim <= axis < array.ndim:
            raise InputError("practice_axis", axis=axis, ndim=array.ndim)
        return axis

    def _softmax(self, node, options) -> Operand:
        (x,) = self._arrays(node, 1)
        array = self._array(x)
        if "axis" not in options:
            raise InputError("practice_softmax_axis")
        axis = self._axis(array, options)
        return Operand(softmax_along(array.astype(np.float64), axis), f"softmax({x.text})")

    def _reduce(self, name: str, array, options):
        axis = self._axis(array, options)
        keepdims = options.get("keepdims", False)
        with np.errstate(all="ignore"):
            return getattr(np, name)(array, axis=axis, keepdims=keepdims)

    def _np(self, name: str, node, options) -> Operand:
        if name in ("exp", "sqrt", "transpose"):
            if set(options):
                raise InputError("practice_keyword", name=next(iter(options)))
            (x,) = self._arrays(node, 1)
            value = self._number_or_array(x)
            with np.errstate(all="ignore"):
                out = {"exp": np.exp, "sqrt": np.sqrt, "transpose": np.transpose}[name](value)
            return Operand(out, f"np.{name}({x.text})")
        if name == "matmul":
            a, b = self._arrays(node, 2)
            return Operand(self._matmul(a, b), f"{a.text} @ {b.text}")
        if name == "maximum":
            a, b = self._arrays(node, 2)
            x, y = self._number_or_array(a), self._number_or_array(b)
            self._fits(np.shape(x), np.shape(y), a, b, "maximum")
            return Operand(np.maximum(x, y), f"np.maximum({a.text}, {b.text})")
        if name == "where":
            c, a, b = self._arrays(node, 3)
            x, y, z = (self._number_or_array(v) for v in (c, a, b))
            shape = self._fits(np.shape(x), np.shape(y), c, a, "where")
            self._fits(shape, np.shape(z), a, b, "where")
            return Operand(np.where(x, y, z), f"np.where({c.text}, {a.text}, {b.text})")
        (x,) = self._arrays(node, 1)  # concatenate: the heads' O [h, n, d_v] side by side
        array = self._array(x)
        if array.ndim != 3:
            raise InputError("practice_concatenate", shape=shape_text(array.shape))
        axis = self._axis(array[0], options, 0)
        return Operand(np.concatenate(list(array), axis=axis), f"np.concatenate({x.text})")

    # -- checks -----------------------------------------------------------------------------

    def _number_or_array(self, operand: Operand):
        value = operand.value
        if isinstance(value, tuple):
            raise InputError("practice_forbidden", what=f"{operand.text} (a shape)")
        if isinstance(value, bool | np.bool_ | np.ndarray) and np.asarray(value).dtype == bool:
            return np.asarray(value, dtype=np.float64)  # True is 1 (NumPy has no bool - or -x)
        return value

    def _array(self, operand: Operand):
        value = self._number_or_array(operand)
        if not isinstance(value, np.ndarray):
            raise InputError("practice_not_matrix", text=operand.text[:60])
        return value

    def _fits(self, a: tuple, b: tuple, left: Operand, right: Operand, op: str) -> tuple:
        """The broadcast shape of ``a`` and ``b``, refused when they do not fit or it is too big."""
        try:
            shape = np.broadcast_shapes(a, b)
        except ValueError:
            raise InputError("practice_broadcast", a=left.text[:60], b=right.text[:60], op=op,
                             a_shape=shape_text(a), b_shape=shape_text(b)) from None  # fmt: skip
        if math.prod(shape) > MAX_ELEMENTS:
            raise InputError("practice_too_big", limit=MAX_ELEMENTS)
        return shape

    def _matmul(self, left: Operand, right: Operand):
        a, b = self._array(left), self._array(right)
        if a.ndim != 2 or b.ndim != 2:
            raise InputError("practice_matmul_2d", a=left.text[:60], b=right.text[:60],
                             a_shape=shape_text(a.shape), b_shape=shape_text(b.shape))  # fmt: skip
        if a.shape[1] != b.shape[0]:
            raise InputError("practice_matmul_shape", a=left.text[:60], b=right.text[:60],
                             a_shape=shape_text(a.shape), b_shape=shape_text(b.shape),
                             inner_a=a.shape[1], inner_b=b.shape[0],
                             fix=right.text[:60] if a.shape[1] == b.shape[1] else "")  # fmt: skip
        if a.shape[0] * b.shape[1] > MAX_ELEMENTS:
            raise InputError("practice_too_big", limit=MAX_ELEMENTS)
        return a @ b


def _kind(node) -> str:
    return {"Lambda": "lambda", "ListComp": "[… for …]", "GeneratorExp": "(… for …)",
            "DictComp": "{…: … for …}", "SetComp": "{… for …}", "JoinedStr": "f\"…\"",
            "List": "[…]", "Tuple": "(…, …)", "Dict": "{…}", "Set": "{…}", "IfExp": "… if … else …",
            "BoolOp": "and / or", "NamedExpr": ":=", "Starred": "*", "Await": "await",
            "Yield": "yield", "Slice": ":", "Not": "not", "Invert": "~", "Mod": "%",
            "FloorDiv": "//", "BitAnd": "&", "BitOr": "|", "BitXor": "^", "LShift": "<<",
            "RShift": ">>", "Is": "is", "IsNot": "is not", "In": "in", "NotIn": "not in",
            }.get(type(node).__name__, type(node).__name__)  # fmt: skip


def _call_name(func) -> str:
    try:
        return ast.unparse(func)[:40] + "(…)"
    except (ValueError, RecursionError):
        return "(…)"
