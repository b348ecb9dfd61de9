"""A class writing with Gemma at once: the same prompt, settings, seed and length asked by many
sessions in the same second is written once (each step's model call made once, the others
waiting for it), and every session gets the same tokens as one session alone."""

import threading

import numpy as np
import pytest

from ui.work import decoding


@pytest.fixture
def counted(gemma, monkeypatch):
    """The shared model, every forward call counted by the number of positions it reads."""
    calls = []
    forward, steps = gemma.forward, gemma.steps

    def counting(ids, *args, **kwargs):
        calls.append(len(ids))
        return forward(ids, *args, **kwargs)

    def counting_steps(tokens, caches):  # several sessions' next tokens in one pass
        calls.append(len(tokens))
        return steps(tokens, caches)

    monkeypatch.setattr(gemma, "forward", counting)
    monkeypatch.setattr(gemma, "steps", counting_steps)
    monkeypatch.setattr(decoding, "decoder", lambda name: gemma)
    decoding._step.cache_clear()
    decoding._distribution.cache_clear()
    decoding._writing.cache_clear()
    yield calls
    decoding._step.cache_clear()
    decoding._distribution.cache_clear()
    decoding._writing.cache_clear()


def test_twenty_sessions_asking_at_once_cost_one_generation(gemma, counted):
    prompt = tuple(gemma.encode("今天天气很好，我们一起去"))
    rules = decoding.Rules(temperature=1.0, top_k=40, top_p=0.95, sample=True, seed=7)
    results, start = [None] * 20, threading.Barrier(20)

    def session(k):
        start.wait()
        results[k] = list(decoding.written(gemma, prompt, rules, 8).tokens)

    threads = [threading.Thread(target=session, args=(k,)) for k in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert counted == [len(prompt)] + [1] * 7  # the prompt's pass, then one token at a time
    assert all(tokens == results[0] for tokens in results)
    decoding._step.cache_clear()
    decoding._distribution.cache_clear()
    decoding._writing.cache_clear()
    alone = list(decoding.written(gemma, prompt, rules, 8).tokens)
    assert alone == results[0]  # shared or alone, the same seed writes the same text


def test_a_step_dropped_then_asked_again_is_built_the_same_way(gemma, counted):
    """A busy server's steps are dropped (least recently used first): asked again, one is built
    from the prompt's pass a token at a time, as it was the first time, so its numbers are the
    same and a seed still writes the same text."""
    prompt = tuple(gemma.encode("The cat sat on the"))
    rules = decoding.Rules(temperature=1.0, top_k=0, top_p=1.0, sample=True, seed=3)
    tokens = decoding.written(gemma, prompt, rules, 6).tokens
    ids = (*prompt, *tokens)
    first = decoding.step_of(gemma, ids, len(prompt)).logits
    assert counted == [len(prompt)] + [1] * 6
    decoding._step.cache_clear()  # every step dropped
    again = decoding.step_of(gemma, ids, len(prompt)).logits
    assert counted[7:] == [len(prompt)] + [1] * 6  # the same path: not one pass of 11 positions
    np.testing.assert_array_equal(again, first)
