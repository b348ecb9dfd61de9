"""Every kind of bad input raises InputError with a code and parameters the UI can translate."""

import numpy as np
import pytest

import core


def _error(call, *args, **kwargs) -> core.InputError:
    with pytest.raises(core.InputError) as caught:
        call(*args, **kwargs)
    assert isinstance(caught.value, ValueError)
    return caught.value


def test_heads_must_divide_d_model():
    error = _error(core.AttentionConfig, d_model=10, n_heads=3)
    assert error.code == "heads_do_not_divide"
    assert error.params == {"d_model": 10, "n_heads": 3}


@pytest.mark.parametrize(
    "field, value",
    [("d_model", 0), ("n_heads", -1), ("d_k", 0), ("d_v", -4), ("d_model", 2.5), ("n_heads", True)],
)
def test_sizes_must_be_positive_whole_numbers(field, value):
    kwargs = {"d_model": 8, "n_heads": 2, field: value}
    error = _error(core.AttentionConfig, **kwargs)
    assert error.code == "non_positive"
    assert error.params == {"name": field, "value": value}


def test_explicit_d_k_and_d_v_need_no_divisibility():
    config = core.AttentionConfig(d_model=10, n_heads=3, d_k=4, d_v=2)
    W = core.init_weights(config)
    assert W.W_Q.shape == (10, 12) and W.W_V.shape == (10, 6) and W.W_O.shape == (6, 10)


def test_bad_dtype():
    assert _error(core.AttentionConfig, dtype="int8").code == "bad_dtype"


def test_shape_mismatch_names_both_shapes_and_the_inner_dimensions():
    error = _error(core.check_matmul, (3, 2), (4, 2))
    assert str(error) == (
        "[3, 2] @ [4, 2]: inner dimensions 2 and 4 differ, did you forget a transpose?"
    )
    assert error.code == "shape_mismatch"
    assert error.params["inner_left"] == 2 and error.params["inner_right"] == 4


def test_attention_reports_a_weight_matrix_that_does_not_fit():
    W = core.init_weights(core.AttentionConfig(d_model=4, n_heads=2))
    error = _error(core.attention, np.ones((3, 5)), W, 2)
    assert error.code == "shape_mismatch"
    assert error.params["left"] == "X [3, 5]" and error.params["right"] == "W_Q [4, 4]"


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_numbers_in_a_typed_matrix(bad):
    W = core.init_weights(core.AttentionConfig(d_model=2, n_heads=1))
    X = np.array([[1.0, 2.0], [3.0, bad], [0.0, 1.0]])
    error = _error(core.attention, X, W, 1)
    assert error.code == "non_finite" and error.params["name"] == "X"
    W_bad = core.Weights(W.W_Q, W.W_K, np.array([[1.0, bad], [0.0, 1.0]]), W.W_O)
    assert _error(core.attention, np.ones((3, 2)), W_bad, 1).params["name"] == "W_V"


def test_n_heads_that_do_not_split_the_projection():
    W = core.init_weights(core.AttentionConfig(d_model=6, n_heads=2))
    assert _error(core.attention, np.ones((2, 6)), W, 4).code == "heads_do_not_divide"
    assert _error(core.attention, np.ones((2, 6)), W, 0).code == "non_positive"


def test_mask_of_the_wrong_size():
    W = core.init_weights(core.AttentionConfig(d_model=4, n_heads=2))
    error = _error(core.attention, np.ones((3, 4)), W, 2, mask=core.causal_mask(4))
    assert error.code == "bad_shape"


@pytest.mark.parametrize(
    "call, args",
    [
        (core.embed, (["a"], 0)),
        (core.positional_encoding, (0, 4)),
        (core.causal_mask, (-2,)),
        (core.padding_mask, ([1], 0)),
    ],
)
def test_non_positive_sizes_elsewhere(call, args):
    assert _error(call, *args).code == "non_positive"


def test_every_code_has_a_message():
    """Every code the core raises has an English message in core and both languages in the UI,
    filled from the error's own parameters, and no message is left without a code."""
    import re
    import string

    from core.errors import MESSAGES
    from tests.support import ROOT
    from ui.kit.i18n import ERRORS

    source = "\n".join(path.read_text("utf-8") for path in (ROOT / "core").rglob("*.py"))
    raised = set(re.findall(r'InputError\(\s*"([a-z0-9_]+)"', source))
    assert len(raised) >= 12
    assert raised == set(MESSAGES) == set(ERRORS)

    def fields(template):
        return {name for _, name, _, _ in string.Formatter().parse(template) if name}

    for code in raised:
        english, chinese = ERRORS[code]["en"], ERRORS[code]["zh"]
        # both languages say the same things, from parameters the error carries
        assert fields(english) == fields(chinese) <= fields(MESSAGES[code]), code
