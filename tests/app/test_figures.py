"""Figure builders without Streamlit: escaping, axes, masked cells, downsampling, payload size."""

import json

import numpy as np

from tests.app.helpers import decode
from ui.figures import MAX_SIDE, block_mean, heatmap


def test_token_labels_are_escaped_and_positions_keep_repeats_apart():
    tokens = ["<b>", "the", "$x$", "the", "<script>alert(1)</script>"]
    fig = heatmap(np.eye(5), tokens, tokens, title="<i>S</i>")
    spec = json.loads(fig.to_json())
    ticks = spec["layout"]["xaxis"]["ticktext"]
    assert ticks[0] == "&lt;b&gt;" and ticks[2] == "&#36;x&#36;"
    assert ticks[4] == "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert spec["layout"]["xaxis"]["tickvals"] == [0, 1, 2, 3, 4]  # "the" twice, two columns
    assert spec["layout"]["title"]["text"] == "&lt;i&gt;S&lt;/i&gt;"
    assert "<b>" not in fig.to_json() and "<script>" not in fig.to_json()


def test_first_token_on_top_and_values_in_cells():
    M = np.array([[1.0, -2.5], [0.125, 3.0]])
    spec = json.loads(heatmap(M, ["a", "b"], ["a", "b"], decimals=2).to_json())
    assert spec["layout"]["yaxis"]["autorange"] == "reversed"
    np.testing.assert_allclose(decode(spec["data"][0]["z"]), M)
    assert spec["data"][0]["text"] == [["1.00", "−2.50"], ["0.12", "3.00"]]


def test_signed_scale_is_centred_on_zero_and_weights_use_zero_to_one():
    signed = json.loads(heatmap(np.array([[-1.0, 4.0]]), ["a"], ["a", "b"]).to_json())["data"][0]
    assert signed["zmid"] == 0 and signed["zmin"] == -4 and signed["zmax"] == 4
    weights = json.loads(
        heatmap(np.array([[0.2, 0.8]]), ["a"], ["a", "b"], scale="unit").to_json()
    )["data"][0]
    assert weights["zmin"] == 0 and weights["zmax"] == 1


def test_masked_cells_are_grey_with_their_value_written_in():
    M = np.array([[0.5, -np.inf], [0.1, 0.2]])
    forbidden = np.isinf(M)
    spec = json.loads(heatmap(M, ["a", "b"], ["a", "b"], forbidden=forbidden).to_json())
    values, grey = spec["data"]
    assert np.isnan(decode(values["z"])[0, 1])
    assert grey["text"][0][1] == "−∞" and grey["text"][1][0] == ""
    assert grey["colorscale"][0][1] == grey["colorscale"][1][1]  # one flat grey


def test_block_mean_matches_a_loop_and_ignores_masked_cells():
    rng = np.random.default_rng(0)
    M = rng.normal(size=(10, 7))
    M[0, :] = np.nan
    reduced, br, bc = block_mean(M, max_side=4)
    assert (br, bc) == (3, 2) and reduced.shape == (4, 4)
    for i in range(4):
        for j in range(4):
            block = M[i * 3 : (i + 1) * 3, j * 2 : (j + 1) * 2]
            expected = np.nanmean(block) if np.isfinite(block).any() else np.nan
            np.testing.assert_allclose(reduced[i, j], expected)


def test_payload_stays_under_one_megabyte_at_n_2048():
    n = 2048
    rng = np.random.default_rng(1)
    A = rng.random((n, n))
    forbidden = ~np.tril(np.ones((n, n), dtype=bool))
    tokens = [f"w{i}" for i in range(n)]
    payload = heatmap(
        A, tokens, tokens, scale="unit", forbidden=forbidden, focus_row=5, row_notes=[""] * n
    ).to_json()
    assert len(payload.encode()) < 1_000_000, f"{len(payload) / 1e6:.2f} MB"
    spec = json.loads(payload)
    shown = decode(spec["data"][0]["z"]).shape
    assert MAX_SIDE * 0.9 <= min(shown) and max(shown) <= MAX_SIDE
