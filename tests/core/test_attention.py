"""Properties of core.attention on every path (reference, fast, threaded) and backend: the matrix
form equals the per-token loop, weights are a masked row softmax, each intermediate is what its
name says, and the fast path gives the reference's numbers."""

import math

import numpy as np
import pytest
from hypothesis import given, reject, settings
from hypothesis import strategies as st

import core
import core.fast
import core.reference
from tests.support.backends import host, on, weights_on
from tests.support.oracles import reference

MASK_KINDS = ("none", "causal", "padding", "random")


@st.composite
def problems(draw):
    """Random shapes, heads, d_k != d_v, optional batch, and one of four kinds of mask."""
    n = draw(st.integers(1, 6))
    n_heads = draw(st.integers(1, 3))
    d_model = draw(st.integers(1, 6))
    d_k = draw(st.integers(1, 4))
    d_v = draw(st.integers(1, 4))
    batch = draw(st.sampled_from([None, 1, 2, 3]))
    kind = draw(st.sampled_from(MASK_KINDS))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    lead = () if batch is None else (batch,)
    X = rng.uniform(-3, 3, (*lead, n, d_model))
    W = core.Weights(
        W_Q=rng.normal(0, 1, (d_model, n_heads * d_k)),
        W_K=rng.normal(0, 1, (d_model, n_heads * d_k)),
        W_V=rng.normal(0, 1, (d_model, n_heads * d_v)),
        W_O=rng.normal(0, 1, (n_heads * d_v, d_model)),
    )
    if kind == "none":
        mask = None
    elif kind == "causal":
        mask = core.to_numpy(core.causal_mask(n))
    elif kind == "padding":
        lengths = rng.integers(0, n + 1, batch or 1)  # a length of 0 leaves rows with no key
        mask = core.to_numpy(core.padding_mask(lengths, n))
        mask = mask if batch else mask[0]
    else:
        mask = rng.random((*lead, n, n)) < 0.6  # some rows may allow no key at all
    return X, W, n_heads, d_k, mask


PATHS = {
    "reference": lambda *args: core.reference.attention(*args),  # one sentence, [n, n] masks
    "fast": lambda *args: core.fast.attention_blocked(*args),
    "core.attention": lambda *args: core.attention(*args),  # chooses one of the two
}


@pytest.fixture(params=list(PATHS), scope="session")
def path(request):
    return request.param


def run(path, problem, xp):
    """The trace of ``problem`` by ``path`` on backend ``xp`` (hypothesis.reject()s a batch or a
    batched mask for the reference, which is written for one sentence)."""
    X, W, n_heads, _, mask = problem
    if path == "reference" and (X.ndim != 2 or (mask is not None and mask.ndim != 2)):
        reject()
    return PATHS[path](on(xp, X), weights_on(xp, W), n_heads, on(xp, mask))


def _allowed(mask, shape):
    """The mask broadcast to [..., h, n, n] (all True without a mask)."""
    if mask is None:
        return np.ones(shape, dtype=bool)
    return np.broadcast_to(mask[..., None, :, :], shape)


@settings(max_examples=60, deadline=None)
@given(problem=problems())
def test_matrix_form_equals_per_token_loop(xp, path, problem):
    X, W, n_heads, _, mask = problem
    args = (on(xp, X), weights_on(xp, W), n_heads, on(xp, mask))
    trace, loop = run(path, problem, xp), core.attention_loop(*args)
    for name in core.FIELDS:  # assert_allclose also demands -inf in the same places of `masked`
        np.testing.assert_allclose(
            host(getattr(trace, name)), host(getattr(loop, name)), rtol=0, atol=1e-12, err_msg=name
        )


@settings(max_examples=60, deadline=None)
@given(problem=problems())
def test_weights_are_a_masked_row_softmax(xp, path, problem):
    X, W, n_heads, _, mask = problem
    A = host(run(path, problem, xp).A)
    allowed = _allowed(mask, A.shape)
    assert np.all(A[~allowed] == 0.0), "a forbidden key got weight"
    row_has_key = allowed.any(axis=-1)
    assert np.all(A[~row_has_key] == 0.0), "a row with no allowed key must be all zeros"
    # not just any row-stochastic matrix: the softmax of these scores, computed independently
    np.testing.assert_allclose(A, reference(X, W, n_heads, mask)["A"], rtol=0, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(problem=problems())
def test_intermediates_are_what_their_names_say(xp, path, problem):
    X, W, n_heads, _, mask = problem
    trace = run(path, problem, xp)
    expected = reference(X, W, n_heads, mask)  # from X and the weights, not the trace's arrays
    for name in core.FIELDS:
        np.testing.assert_allclose(
            host(getattr(trace, name)), expected[name], rtol=0, atol=1e-12, err_msg=name
        )


@settings(max_examples=60, deadline=None)
@given(problem=problems())
def test_the_fast_path_gives_the_references_numbers(xp, problem):
    """Bit for bit on NumPy, where the two do the same arithmetic in another order of blocks;
    to float tolerance on the other backends."""
    trace, fast = run("reference", problem, xp), run("fast", problem, xp)
    for name in core.FIELDS:
        got, expected = host(getattr(fast, name)), host(getattr(trace, name))
        if xp.__name__.endswith("numpy"):
            np.testing.assert_array_equal(got, expected, err_msg=name)
        else:
            np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12, err_msg=name)


@settings(max_examples=60, deadline=None)
@given(problem=problems(), data=st.data())
def test_the_fused_pass_on_every_core_gives_the_references_numbers(problem, data):
    """core/threads.py's pool and its cache-sized blocks of rows (forced here for small problems:
    every pass goes to the pool, a few rows a block), for any fields kept, with or without a mask,
    batched or not. BLAS picks its kernel by a matrix's shape, so a block's Q Kᵀ and A V, and the
    projections made in parts of rows (threads.matmul_rows), agree with the whole matrices' to
    float rounding; every element-wise pass on the blocks' own scores
    (÷√d_k, the mask, the softmax) is bit for bit the whole-array passes', and keeping fewer
    fields changes no bit."""
    from unittest import mock

    from core import threads
    from core.softmax import softmax_rows

    X, W, n_heads, d_k, mask = problem
    keep = data.draw(st.sets(st.sampled_from(core.FIELDS), min_size=1))
    with (
        mock.patch.object(threads, "PARALLEL_FROM", 1),
        mock.patch.object(threads, "ROW_BYTES", data.draw(st.sampled_from([1, 24, 200]))),
        mock.patch.object(threads, "PRODUCT_BYTES", data.draw(st.sampled_from([1, 100, 800]))),
    ):
        threaded = core.fast.attention_blocked(X, W, n_heads, mask, keep=keep)
        every = core.fast.attention_blocked(X, W, n_heads, mask)  # every field, the same blocks
    whole = core.fast.attention_blocked(X, W, n_heads, mask)  # whole-array passes, this thread
    for name in core.FIELDS:
        value = getattr(threaded, name)
        if name not in keep:
            assert value is None, name
            continue
        np.testing.assert_array_equal(value, getattr(every, name), err_msg=name)
        expected = getattr(whole, name)
        np.testing.assert_allclose(value, expected, rtol=1e-12, atol=1e-10, err_msg=name)
        if name in ("Q", "K", "V"):  # each part of X's rows times W, on one BLAS thread
            (product,) = threads.matmul_rows(X, getattr(W, f"W_{name}"))
            np.testing.assert_array_equal(value, core.split_heads(product, n_heads), err_msg=name)
        if name == "X":
            np.testing.assert_array_equal(value, expected)
    scaled = every.S / math.sqrt(d_k)
    np.testing.assert_array_equal(every.S_scaled, scaled)
    if mask is not None:
        allowed = mask if mask.ndim == 2 else mask[..., None, :, :]  # every head, its sentence's
        scaled = np.where(np.broadcast_to(allowed, scaled.shape), scaled, -np.inf)
    np.testing.assert_array_equal(every.S_masked, scaled)
    np.testing.assert_array_equal(every.A, softmax_rows(scaled))  # the whole-array softmax


@settings(max_examples=30, deadline=None)
@given(problem=problems())
def test_float32_agrees_with_float64(problem):
    X, W, n_heads, _, mask = problem
    W32 = core.Weights(**{k: v.astype(np.float32) for k, v in vars(W).items()})
    out32 = core.attention(X.astype(np.float32), W32, n_heads, mask)
    out64 = core.attention(X, W, n_heads, mask)
    assert out32.output.dtype == np.float32
    scale = 1 + np.abs(out64.output).max()
    np.testing.assert_allclose(out32.output, out64.output, atol=1e-4 * scale)
    np.testing.assert_allclose(out32.A, out64.A, atol=1e-4)


@settings(max_examples=30, deadline=None)
@given(problem=problems(), data=st.data())
def test_keeping_fewer_fields_or_heads_changes_no_number(xp, problem, data):
    X, W, n_heads, _, mask = problem
    args = (on(xp, X), weights_on(xp, W), n_heads, on(xp, mask))
    full = core.fast.attention_blocked(*args)
    keep = data.draw(st.sets(st.sampled_from(core.FIELDS), min_size=1))
    heads = data.draw(st.one_of(st.none(), st.sets(st.integers(0, n_heads - 1), min_size=1)))
    part = core.attention(*args, keep=keep, heads=heads)
    shown = sorted(range(n_heads) if heads is None else heads)
    assert part.heads == tuple(shown)
    for name in core.FIELDS:
        value = getattr(part, name)
        if name not in keep:
            assert value is None, name
        elif name in ("X", "concat", "output"):
            np.testing.assert_array_equal(host(value), host(getattr(full, name)))
        else:
            whole = host(getattr(full, name))
            np.testing.assert_array_equal(host(value), whole[..., shown, :, :], err_msg=name)


@settings(max_examples=20, deadline=None)
@given(problem=problems())
def test_computing_head_by_head_under_a_memory_budget_changes_no_number(xp, problem):
    from unittest import mock

    X, W, n_heads, _, mask = problem
    args = (on(xp, X), weights_on(xp, W), n_heads, on(xp, mask))
    whole = core.attention(*args)
    with mock.patch.object(core.fast, "BLOCK_BYTES", 1):  # forces one head per block
        blocked = core.fast.attention_blocked(*args)
    for name in core.FIELDS:
        np.testing.assert_array_equal(
            host(getattr(blocked, name)), host(getattr(whole, name)), err_msg=name
        )


def test_a_batch_mask_over_one_sentence_broadcasts_as_on_every_backend(xp):
    """A [b, n, n] mask over an unbatched X gives [b, h, n, n] weights (each mask's own softmax),
    whichever way the backend writes -inf."""
    rng = np.random.default_rng(5)
    n, d_model, n_heads = 5, 8, 2
    X = rng.normal(size=(n, d_model))
    W = core.init_weights(core.AttentionConfig(d_model=d_model, n_heads=n_heads))
    masks = np.stack([np.tril(np.ones((n, n), bool)), np.ones((n, n), bool)])  # [2, n, n]
    trace = core.attention(on(xp, X), weights_on(xp, W), n_heads, on(xp, masks))
    A = host(trace.A)
    assert A.shape == (2, n_heads, n, n)
    for b in range(2):
        alone = host(core.attention(X, W, n_heads, masks[b]).A)  # one mask at a time
        np.testing.assert_allclose(A[b], alone, atol=1e-12)


def test_heads_outside_the_layer_are_refused():
    X = np.ones((3, 4))
    W = core.init_weights(core.AttentionConfig(d_model=4, n_heads=2))
    for heads in ([2], [-1]):
        with pytest.raises(ValueError, match="heads must be in 0..1"):
            core.attention(X, W, 2, keep={"A"}, heads=heads)


def test_no_heads_chosen_gives_empty_fields_not_an_error():
    W = core.init_weights(core.AttentionConfig(d_model=4, n_heads=2))
    trace = core.attention(np.ones((3, 4)), W, 2, keep={"S_masked", "A"}, heads=[])
    assert trace.heads == () and trace.S_masked is None and trace.A is None
