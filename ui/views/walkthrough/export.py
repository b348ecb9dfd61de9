"""Taking the numbers home: every intermediate as .npz or as CSV files in a zip."""

import csv
import io
import zipfile

import numpy as np

import core


def named_matrices(data) -> dict[str, np.ndarray]:
    """Every matrix of a SentenceTrace by name; per-head arrays keep their leading head axis."""
    matrices = {"E": data.E, **({"PE": data.PE} if data.PE is not None else {})}
    matrices.update({name: getattr(data.W, name) for name in ("W_Q", "W_K", "W_V", "W_O")})
    matrices.update(
        {
            name: getattr(data.trace, name)
            for name in core.FIELDS
            if getattr(data.trace, name) is not None
        }
    )
    if data.mask is not None:
        matrices["mask"] = data.mask
    return matrices


def to_npz(data) -> bytes:
    """One .npz with every matrix and the tokens (np.load(..., allow_pickle=False) reads it)."""
    buffer = io.BytesIO()
    np.savez_compressed(buffer, tokens=np.array(data.tokens, dtype=str), **named_matrices(data))
    return buffer.getvalue()


def _csv(matrix: np.ndarray, row_labels) -> str:
    """A matrix as CSV: a header of column numbers, each row led by its label (written as text)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["", *range(matrix.shape[1])])
    for label, row in zip(row_labels, matrix):
        writer.writerow([label, *(repr(float(v)) if np.isfinite(v) else str(v) for v in row)])
    return out.getvalue()


def to_csv_zip(data) -> bytes:
    """A zip of CSV files: one per matrix, and one per head for the per-head ones."""
    tokens = [f"{i}:{token}" for i, token in enumerate(data.tokens)]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, M in named_matrices(data).items():
            M = np.asarray(M, dtype=float)
            if M.ndim == 3:
                for h, M_h in enumerate(M):
                    rows = tokens if M_h.shape[0] == len(tokens) else range(M_h.shape[0])
                    archive.writestr(f"{name}_head{h}.csv", _csv(M_h, rows))
            else:
                rows = tokens if M.shape[0] == len(tokens) else range(M.shape[0])
                archive.writestr(f"{name}.csv", _csv(M, rows))
    return buffer.getvalue()
