"""Downloads (ui/views/walkthrough/export.py): every intermediate as .npz and zipped CSV, tokens
literal, numbers exact."""

import csv
import io
import zipfile

import numpy as np

import core
from ui.views.walkthrough.export import to_csv_zip, to_npz
from ui.work.traces import SentenceTrace, _host_trace, _host_weights

TOKENS = ["<b>", "a,b", '"q"', "=1+1", "好看"]


def _data(causal=True) -> SentenceTrace:
    X = core.embed(TOKENS, 8) + core.positional_encoding(5, 8)
    W = core.init_weights(core.AttentionConfig())
    mask = core.causal_mask(5) if causal else None
    trace = core.attention(X, W, 2, mask)
    return SentenceTrace(
        tuple(TOKENS),
        core.to_numpy(core.embed(TOKENS, 8)),
        core.to_numpy(core.positional_encoding(5, 8)),
        _host_weights(W),
        _host_trace(trace),
        core.to_numpy(mask),
        4,
        4,
        "numpy",
    )


def test_npz_holds_every_intermediate_exactly():
    data = _data()
    expected = {name: getattr(data.trace, name) for name in core.FIELDS}
    expected.update(W_Q=data.W.W_Q, W_O=data.W.W_O, E=data.E, PE=data.PE, mask=data.mask)
    with np.load(io.BytesIO(to_npz(data)), allow_pickle=False) as saved:
        assert list(saved["tokens"]) == TOKENS
        for name, value in expected.items():
            np.testing.assert_array_equal(saved[name], value, err_msg=name)


def test_csv_zip_has_one_file_per_matrix_and_head_with_literal_tokens():
    data = _data()
    with zipfile.ZipFile(io.BytesIO(to_csv_zip(data))) as archive:
        names = set(archive.namelist())
        assert {"A_head0.csv", "A_head1.csv", "output.csv", "W_Q.csv"} <= names
        rows = list(csv.reader(io.StringIO(archive.read("A_head1.csv").decode())))
    assert [row[0] for row in rows[1:]] == [f"{i}:{t}" for i, t in enumerate(TOKENS)]
    A = np.array([[float(v) for v in row[1:]] for row in rows[1:]])
    np.testing.assert_array_equal(A, data.trace.A[1])  # repr() round-trips exactly
    assert A[0, 1] == 0.0  # masked: exactly zero
    with zipfile.ZipFile(io.BytesIO(to_csv_zip(data))) as archive:
        masked = archive.read("S_masked_head0.csv").decode()
    assert "-inf" in masked
