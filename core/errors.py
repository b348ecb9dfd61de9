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
}


class InputError(ValueError):
    """Input the learner can fix; ``code`` and ``params`` let the UI translate the message."""

    def __init__(self, code: str, **params):
        self.code = code
        self.params = params
        super().__init__(MESSAGES[code].format(**params))
