"""InputError: bad input as a code and parameters, so the UI can say it in either language."""

MESSAGES = {
    "empty_sentence": "The sentence is empty: type at least one word.",
    "too_many_tokens": "The sentence has {n} tokens; the limit is {limit}.",
    "too_long": "The sentence has {n} characters; the limit is {limit}.",
    "unknown_mode": "Unknown tokenizer mode {mode!r}; use one of {modes}.",
    "non_positive": "{name} must be a positive whole number, got {value}.",
    "heads_do_not_divide": "d_model = {d_model} is not divisible by n_heads = {n_heads}.",
    "non_finite": "{name} contains a value that is not a finite number ({value}).",
    "shape_mismatch": (
        "{left} @ {right}: inner dimensions {inner_left} and {inner_right} differ, "
        "did you forget a transpose?"
    ),
    "bad_shape": "{name} should have shape {expected}, got {actual}.",
    "overflow": (
        "The numbers are too large for {dtype}: {step} has a value beyond ±{limit:.3g}. "
        "Use smaller inputs or weights."
    ),
    "bad_dtype": "dtype must be float32 or float64, got {dtype!r}.",
    "model_missing": "The model package {package!r} is not installed: {hint}",
    "unknown_model": "Unknown model {name!r}; choose one of {models}.",
    "practice_empty": "Type one line, e.g. S = Q @ K.T.",
    "practice_too_long": (
        "The line has {n} characters; the limit is {limit}. One step fits in one short line."
    ),
    "practice_too_deep": "The line is nested more than {limit} levels deep. Write it more simply.",
    "practice_syntax": "This line is not a Python expression (check the brackets and operators).",
    "practice_too_many_parts": (
        "The line has {n} parts; the limit is {limit}. One step needs far fewer."
    ),
    "practice_too_slow": "The line took longer than {seconds} s and was stopped.",
    "practice_forbidden": (
        "{what} is not allowed here. You can use the matrices' names, numbers, @ + - * / "
        "**, .T, .shape, .sum/.max/.mean, np.exp, np.sqrt, np.where, np.matmul, "
        "np.transpose, np.maximum, np.concatenate, np.inf and softmax(x, axis=…)."
    ),
    "practice_unknown_name": "There is no {name} here. The names you can use: {names}.",
    "practice_power": "An exponent must be a number no larger than {limit}.",
    "practice_axis": (
        "axis={axis} does not exist: the array has {ndim} axes (0 to {ndim} − 1, or −1 "
        "for the last)."
    ),
    "practice_keyword": (
        "{name}= takes a whole number (axis) or True/False (keepdims), written out."
    ),
    "practice_arguments": "{name} takes {n} arguments here.",
    "practice_softmax_axis": (
        "Say which axis the softmax runs along, e.g. softmax(S_masked, axis=-1): each "
        "query's row over the keys."
    ),
    "practice_concatenate": (
        "np.concatenate here joins the heads' outputs O_heads ([h, n, d_v]); it got a "
        "{shape} array."
    ),
    "practice_not_matrix": "{text} is a number, not a matrix.",
    "practice_broadcast": (
        "{a} is {a_shape} and {b} is {b_shape}: their shapes do not fit for {op}."
    ),
    "practice_too_big": "The result would have more than {limit} numbers.",
    "practice_matmul_2d": "@ here multiplies two matrices: {a} is {a_shape} and {b} is {b_shape}.",
    "practice_matmul_shape": (
        "{a} is {a_shape} and {b} is {b_shape}: the inner sizes of {a} @ {b} do not match"
        " ({inner_a} and {inner_b})."
    ),
    "practice_number": "Numbers here stay below {limit}.",
    "practice_needs_weights": "This step needs the weight matrices.",
}


class InputError(ValueError):
    """Input the learner can fix; ``code`` and ``params`` let the UI translate the message."""

    def __init__(self, code: str, **params):
        self.code = code
        self.params = params
        super().__init__(MESSAGES[code].format(**params))
