"""Embeddings depend only on (token, d_model, seed), in every process."""

import json
import os
import subprocess
import sys

import numpy as np

import core
from tests.support import ROOT

TOKENS = ["电影", "好看", "<b>", "the"]


def _embed_in_new_process(hash_seed: str) -> list:
    code = f"import core, json; print(json.dumps(core.embed({TOKENS!r}, 8, seed=3).tolist()))"
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def test_same_vectors_in_other_processes_whatever_the_hash_seed():
    here = core.to_numpy(core.embed(TOKENS, 8, seed=3))
    np.testing.assert_array_equal(here, _embed_in_new_process("1"))
    np.testing.assert_array_equal(here, _embed_in_new_process("2"))


def test_a_token_vector_ignores_its_neighbours_and_position():
    alone = core.to_numpy(core.embed(["电影"], 8))
    in_sentence = core.to_numpy(core.embed(["这", "部", "电影", "电影"], 8))
    np.testing.assert_array_equal(in_sentence[2], alone[0])
    np.testing.assert_array_equal(in_sentence[3], alone[0])


def test_seed_and_width_change_the_vectors():
    base = core.to_numpy(core.embed(["电影"], 8, seed=0))
    assert not np.array_equal(base, core.to_numpy(core.embed(["电影"], 8, seed=1)))
    assert core.to_numpy(core.embed(["电影"], 16)).shape == (1, 16)


def test_readable_magnitudes():
    X = core.to_numpy(core.embed([f"w{i}" for i in range(200)], 64))
    np.testing.assert_array_equal(X, np.round(X, 2))  # two decimals, copyable onto paper
    assert 0.8 < X.std() < 1.2 and np.abs(X).max() < 6


def test_float32_on_request():
    assert core.to_numpy(core.embed(["a"], 4, dtype="float32")).dtype == np.float32
