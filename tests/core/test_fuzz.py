"""Fuzzing the core's entry points: anything a learner can type or a link can carry."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core
import core.fast
from core.tokens import clean

HOSTILE = [
    "<b>",
    "<script>alert(1)</script>",
    "javascript:alert(1)",
    "$x^2$",
    "**md**",
    "\u200b",
    "\u200d",
    "\x07",
    "\x00",
    "\u202e",
    "😀",
    "שלום",
    "مرحبا",
    "e\u0301",
    "这部电影",
    " ",
    "\t",
    "\n",
    "，",
    "ＡＢＣ",
]
texts = st.lists(st.one_of(st.sampled_from(HOSTILE), st.text(max_size=8)), max_size=12).map("".join)


@settings(max_examples=200, deadline=None)
@given(sentence=texts, mode=st.sampled_from(core.MODES))
def test_tokenize_returns_clean_tokens_or_a_learner_error(sentence, mode):
    try:
        tokens = core.tokenize(sentence, mode, max_tokens=10_000, max_chars=10_000)
    except core.InputError as error:
        assert error.code == "empty_sentence"
        assert not clean(sentence).strip()
        return
    assert tokens and all(tokens)
    assert not any(ch.isspace() for token in tokens for ch in token)
    assert core.count_invisible("".join(tokens)) == 0
    # nothing but whitespace and invisible characters is lost, in order
    assert "".join(tokens) == "".join(clean(sentence).split())


def test_a_100000_character_sentence_is_refused_before_tokenizing(monkeypatch):
    import core.tokens

    def jieba_must_not_run():
        raise AssertionError("the length check must come before jieba")

    monkeypatch.setattr(core.tokens, "_load_jieba", jieba_must_not_run)
    with pytest.raises(core.InputError) as error:
        core.tokenize("我" * 100_000, max_chars=5000)
    assert error.value.code == "too_long" and error.value.params == {"n": 100_000, "limit": 5000}


def test_invisible_characters_are_dropped_and_counted():
    assert core.tokenize("a\u200bb c\x07") == ["ab", "c"]
    assert core.count_invisible("a\u200bb c\x07") == 2
    assert core.tokenize("cafe\u0301") == ["café"]  # combining accent composed
    with pytest.raises(core.InputError):
        core.tokenize("\u200b\u200d\x00")


def _largest_reachable(X, W, heads):
    """In long double (a wider range than float64), the largest magnitude each step can reach:
    Q, K, V and S exactly, O and the output by a bound (|O| <= max|V|, as rows of A sum to 1)."""
    L = np.longdouble
    X, (W_Q, W_K, W_V, W_O) = X.astype(L), (M.astype(L) for M in vars(W).values())
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    d = Q.shape[1] // heads
    S = max(
        float(np.abs(Q[:, h * d : (h + 1) * d] @ K[:, h * d : (h + 1) * d].T).max())
        for h in range(heads)
    )
    V_max = np.abs(V).max()
    output = V_max * np.abs(W_O).sum(axis=0).max()
    return max(float(np.abs(Q).max()), float(np.abs(K).max()), float(V_max), S, float(output))


def _softmax_long(masked):
    """softmax along the last axis in long double, -inf cells 0, an all -inf row all 0."""
    Z = masked.astype(np.longdouble)
    top = Z.max(axis=-1, keepdims=True)
    E = np.exp(Z - np.where(np.isfinite(top), top, 0))
    total = E.sum(axis=-1, keepdims=True)
    return E / np.where(total > 0, total, 1)


@settings(max_examples=150, deadline=None)
@given(
    data=st.data(),
    n=st.integers(1, 5),
    heads=st.sampled_from([1, 2]),
    width=st.integers(1, 3),
    dtype=st.sampled_from(["float32", "float64"]),
)
def test_attention_from_any_finite_input_is_a_true_softmax_or_an_overflow_refusal(
    data, n, heads, width, dtype
):
    """Entries drawn from the dtype's whole finite range, where scores overflow."""
    d = heads * width
    finite = st.floats(
        allow_nan=False, allow_infinity=False, width=32 if dtype == "float32" else 64
    )

    def matrix(rows, cols):
        values = data.draw(st.lists(finite, min_size=rows * cols, max_size=rows * cols))
        return np.array(values, dtype=dtype).reshape(rows, cols)

    X = matrix(n, d)
    W = core.Weights(**{name: matrix(d, d) for name in ("W_Q", "W_K", "W_V", "W_O")})
    mask = data.draw(st.sampled_from([None, "causal", "random"]))
    if mask == "causal":
        mask = core.causal_mask(n)
    elif mask == "random":
        mask = np.array(data.draw(st.lists(st.booleans(), min_size=n * n, max_size=n * n)))
        mask = mask.reshape(n, n)
    try:
        trace = core.attention(X, W, heads, mask)
    except core.InputError as error:  # only a real overflow may be refused
        assert error.code == "overflow", error
        assert _largest_reachable(X, W, heads) >= 0.99 * float(np.finfo(dtype).max)
        return
    for name in ("Q", "K", "V", "S", "S_scaled", "A", "O", "output"):
        assert np.isfinite(getattr(trace, name)).all(), name
    A = trace.A
    allowed = np.ones((n, n), bool) if mask is None else np.asarray(mask)
    assert (A[:, ~allowed] == 0).all() and (A >= 0).all()
    sums = A.sum(axis=-1)  # [h, n]
    tolerance = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(sums[:, allowed.any(axis=1)], 1, atol=tolerance)
    assert (sums[:, ~allowed.any(axis=1)] == 0).all()
    # A is the softmax of the masked scores, computed again independently in long double
    np.testing.assert_allclose(A, _softmax_long(trace.S_masked).astype(dtype), atol=tolerance * 10)


@pytest.mark.parametrize(
    "call",
    [
        lambda X, W: core.attention(X[None], W, 1),  # a batch of one: the fast path
        lambda X, W: core.attention(X, W, 1, keep={"A", "output"}),  # fewer fields: the fast path
        lambda X, W: core.attention(X, W, 1, heads=[0]),
        lambda X, W: core.fast.attention_blocked(X, W, 1),
    ],
)
def test_the_fast_path_refuses_overflowing_scores_too(call):
    # q·k = 1e200 * -1e200 = -1e400: -inf in float64, which would leave rows of A all zero
    X = np.ones((2, 1))
    W = core.Weights(np.array([[1e200]]), np.array([[-1e200]]), np.eye(1), np.eye(1))
    with pytest.raises(core.InputError) as error:
        call(X, W)
    assert error.value.code == "overflow" and error.value.params["step"] == "S = Q Kᵀ"


def test_scores_that_overflow_are_refused_not_turned_into_nan():
    # the reported case: float64 scores of 1e320 were inf, and inf / inf made A all NaN
    X = np.array([[1e160, 0], [0, 1e160], [1e160, 1e160]])
    W = core.Weights(*(np.eye(2),) * 4)
    with pytest.raises(core.InputError) as error:
        core.attention(X, W, 1)
    assert error.value.code == "overflow" and error.value.params["step"] == "S = Q Kᵀ"
    assert error.value.params["dtype"] == "float64"


@pytest.mark.parametrize("scale", [1e18, 3e19, 1e20])
@pytest.mark.parametrize("seed", range(4))
def test_float32_near_its_limit_gives_rows_that_sum_to_1_or_a_refusal(scale, seed):
    # float32 inputs around 3e19 gave NaN, or rows of A all zero where keys were allowed
    config = core.AttentionConfig(d_model=4, n_heads=2, dtype="float32", seed=seed)
    W = core.init_weights(config)
    X = (np.random.default_rng(seed).normal(size=(4, 4)) * scale).astype(np.float32)
    try:
        trace = core.attention(X, W, 2, core.causal_mask(4))
    except core.InputError as error:
        assert error.code == "overflow"
        assert _largest_reachable(X, W, 2) >= 0.99 * float(np.finfo(np.float32).max)
        return
    np.testing.assert_allclose(trace.A.sum(axis=-1), 1, atol=1e-5)


def test_the_overflow_refusal_is_said_in_both_languages():
    from ui.kit.i18n import error_text

    with pytest.raises(core.InputError) as error:
        core.attention(
            np.full((2, 2), 1e30, np.float32), core.Weights(*(np.eye(2, dtype=np.float32),) * 4), 1
        )
    english, chinese = error_text(error.value, "en"), error_text(error.value, "zh")
    assert "float32" in english and "too large" in english and "S = Q Kᵀ" in english
    assert "float32" in chinese and "数值太大" in chinese and "S = Q Kᵀ" in chinese


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_non_finite_input_is_an_input_error_not_nan(value):
    W = core.init_weights(core.AttentionConfig(d_model=4, n_heads=2))
    X = np.ones((3, 4))
    X[1, 2] = value
    with pytest.raises(core.InputError) as error:
        core.attention(X, W, 2)
    assert error.value.code == "non_finite"
