"""AppTest for the curriculum pages: the numbers they draw against independent computations."""

import numpy as np

from tests.app.helpers import chart_titled, decode, page_text, run_app


def test_multi_head_split_is_a_reshape_of_the_projection():
    at = run_app("multi-head", lang="en", n_heads=4, d_model=8)
    assert not at.exception
    Q_all = decode(chart_titled(at, "X W_Q")["data"][0]["z"])  # [n, h*d_k]
    assert Q_all.shape == (5, 8)
    for h in range(4):  # head h is columns 2h, 2h+1 of X W_Q
        Q_h = decode(chart_titled(at, f"Q_{h}")["data"][0]["z"])
        np.testing.assert_array_equal(Q_h, Q_all[:, 2 * h : 2 * h + 2])
    for h in range(4):
        A_h = decode(chart_titled(at, f"A_{h}")["data"][0]["z"])
        np.testing.assert_allclose(A_h.sum(axis=1), 1.0, atol=1e-5)
    assert "One head or several" in page_text(at)


def test_multi_head_with_one_head_says_how_to_compare():
    at = run_app("multi-head", lang="zh", n_heads=1)
    assert not at.exception
    assert any("2 个或更多的头" in i.value for i in at.info)
