"""The flash page's opening tile (ui/views/flash.py) rescales in its first steps for both default
sentences."""

from core.variants.flash import flash_attention, rescales, showing_tile
from ui.kit.i18n import DEFAULT_SENTENCE


def test_the_default_tile_rescales_in_the_first_steps_of_both_default_sentences():
    from ui.work.traces import TraceKey, sentence_trace

    for sentence in DEFAULT_SENTENCE.values():
        data = sentence_trace(TraceKey(sentence, "auto", 8, 2, 0, True, "none"))
        Q, K, V = data.trace.Q[0], data.trace.K[0], data.trace.V[0]
        tile = showing_tile(Q, K, V)
        _, steps = flash_attention(Q, K, V, tile, tile, record=True)
        assert any(rescales(step).any() for step in steps[1:3]), sentence
