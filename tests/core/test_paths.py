"""Path lengths from the first token to the last, against a layer-by-layer simulation."""

import pytest

from core.lessons.paths import attention_steps, cnn_layers, rnn_steps
from tests.support.oracles import simulated_cnn_layers


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 17, 64, 100])
@pytest.mark.parametrize("k", [2, 3, 4, 5, 7, 16])
def test_cnn_layers_match_a_simulation(n, k):
    assert cnn_layers(n, k) == simulated_cnn_layers(n, k)


def test_a_kernel_of_two_is_as_slow_as_the_rnn_and_attention_takes_one_step():
    for n in (2, 10, 512):
        assert cnn_layers(n, 2) == rnn_steps(n) == n - 1
        assert attention_steps(n) == 1
    assert cnn_layers(512, 3) == 256 and cnn_layers(512, 512) == 1 and cnn_layers(513, 5) == 128


def test_a_kernel_of_one_is_refused():
    with pytest.raises(ValueError):
        cnn_layers(5, 1)
