"""The figure builders (ui/figures/): labels, scales, masks, marks, payload size, the palette, and
how many head panels fit a row."""

import json

import numpy as np

from tests.support.app import decode
from ui.figures.heatmaps import block_mean, heatmap
from ui.figures.palette import MAX_SIDE
from ui.figures.place import panels_per_row


def test_token_labels_are_escaped_and_positions_keep_repeats_apart():
    tokens = ["<b>", "the", "$x$", "the", "<script>alert(1)</script>"]
    fig = heatmap(np.eye(5), tokens, tokens, title="<i>S</i>")
    spec = json.loads(fig.to_json())
    ticks = spec["layout"]["xaxis"]["ticktext"]
    assert ticks[0] == "&lt;b&gt;" and ticks[2] == "&#36;x&#36;"
    assert ticks[4] == "&lt;script…"  # long labels are shortened on the axis
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
    values, grey, *white_text = spec["data"]  # then the dark cells' white text
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


def test_palette_is_okabe_ito_with_one_strong_hue_per_role():
    from ui.figures.palette import COLOURS, HEAD_COLOURS, PALE, SERIES

    okabe_ito = {"#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00"}
    okabe_ito.add("#CC79A7")
    assert set(COLOURS.values()) <= okabe_ito and len(set(COLOURS.values())) == 4
    assert not PALE & set(COLOURS.values())  # Q, K, V, O titles must read on white
    assert set(HEAD_COLOURS) == okabe_ito  # eight heads, eight different colours
    assert not PALE & set(HEAD_COLOURS[:6])
    assert set(SERIES.values()) <= okabe_ito


def test_a_pale_title_colour_becomes_a_swatch_with_dark_words():
    fig = heatmap(np.eye(2), ["a", "b"], ["a", "b"], title="Q_7", title_colour="#F0E442")
    title = fig.layout.title
    assert title.font.color == "#333333" and "#F0E442" in title.text and "Q_7" in title.text


def test_line_charts_take_their_colours_from_the_palette():
    from ui.figures.lines import line_chart
    from ui.figures.palette import LINE_COLOURS, SERIES

    fig = line_chart([1, 2], {"a": [1, 2], "b": [2, 3]}, title="", x_title="", y_title="")
    assert [trace.line.color for trace in fig.data] == list(LINE_COLOURS[:2])
    named = line_chart(
        [1, 2],
        {"loop": [1, 2], "matrix": [2, 3]},
        title="",
        x_title="",
        y_title="",
        colours=[SERIES["loop"], SERIES["matrix"]],
    )
    assert [trace.line.color for trace in named.data] == [SERIES["loop"], SERIES["matrix"]]


def test_a_mask_is_two_colours_with_a_legend_in_either_language():
    from ui.figures.heatmaps import mask_heatmap

    allowed = np.tril(np.ones((4, 4), dtype=bool))
    allowed[:, 3] = False
    tokens = ["a", "b", "c", "<pad>"]
    for legend in (("allowed (1)", "forbidden (0)"), ("可见（1）", "被遮住（0）")):
        spec = json.loads(mask_heatmap(allowed, tokens, tokens, title="m", legend=legend).to_json())
        cells, *keys = spec["data"]
        keys = [key for key in keys if key.get("showlegend")]  # not the blue cells' white text
        assert cells.get("showscale") is False  # no continuous colour bar
        colours = {colour for _, colour in cells["colorscale"]}
        assert len(colours) == 2
        np.testing.assert_array_equal(decode(cells["z"]), allowed.astype(float))
        assert cells["text"] == np.where(allowed, "1", "0").tolist()
        # the colour scale puts 0 and 1 on different colours, each named in the legend
        scale = dict((stop, colour) for stop, colour in cells["colorscale"])
        assert scale[0] != scale[1]
        names = [key["name"] for key in keys]
        assert names == list(legend)
        assert [key["marker"]["color"] for key in keys] == [scale[1], scale[0]]
        assert all(key["showlegend"] for key in keys)


def test_colour_bar_touches_its_plot():
    wide = json.loads(heatmap(np.ones((3, 2)), list("abc"), list("xy")).to_json())
    bar = wide["data"][0]["colorbar"]
    # the plot fills the width (x domain [0, 1]): the bar starts at its right edge
    assert bar["x"] == 1.0 and bar["xanchor"] == "left" and bar["xpad"] <= 10
    assert "scaleanchor" not in wide["layout"]["yaxis"]
    A = np.full((3, 3), 1 / 3)
    notes = json.loads(heatmap(A, list("abc"), list("abc"), row_notes=["Σ=1"] * 3).to_json())
    bar = notes["data"][0]["colorbar"]
    assert bar["x"] == 1.0 and bar["xanchor"] == "left" and 40 <= bar["xpad"] <= 60  # past Σ
    # a square plot is centred on a wide screen and shorter than the figure on a phone: its
    # bar lies over it, centred, and the plot sits flush under the bar (any spare room below)
    square = json.loads(heatmap(A, list("abc"), list("abc"), square=True).to_json())
    bar, layout = square["data"][0]["colorbar"], square["layout"]
    assert bar["orientation"] == "h" and bar["x"] == 0.5 and bar["xanchor"] == "center"
    assert bar["lenmode"] == "pixels" and bar["len"] <= 240
    assert (bar["y"], bar["yref"], bar["yanchor"]) == (1, "paper", "bottom")
    assert 60 <= layout["margin"]["t"] <= 100  # title, then the bar, in fixed pixels
    assert layout["xaxis"].get("constraintoward", "center") == "center"
    assert layout["yaxis"]["constraintoward"] == "top"  # no hole between title and cells
    title_px = (1 - layout["title"]["y"]) * layout["height"]
    assert layout["title"]["yref"] == "container" and title_px < layout["margin"]["t"] - 40


def test_row_notes_sit_level_with_their_rows_right_of_the_cells():
    A = np.array([[0.25, 0.75], [0.5, 0.5], [1.0, 0.0]])
    for square in (False, True):
        spec = json.loads(
            heatmap(
                A, list("abc"), list("xy"), row_notes=["Σ=1", "Σ=2", "Σ=3"], square=square
            ).to_json()
        )["layout"]
        notes = [n for n in spec["annotations"] if n["text"].startswith("Σ")]
        # on the rows' own axis (so a shrunken square plot keeps them level), past the cells
        assert [(n["y"], n["yref"]) for n in notes] == [(0, "y"), (1, "y"), (2, "y")]
        assert all((n["x"], n["xref"], n["xanchor"]) == (1, "x domain", "left") for n in notes)
        assert "yaxis2" not in spec
        assert spec["margin"]["r"] >= 40  # room for "Σ=1.00"


def test_the_row_title_is_drawn():
    spec = json.loads(
        heatmap(np.eye(2), ["a", "b"], ["x", "y"], row_title="query i", col_title="key j").to_json()
    )["layout"]
    assert spec["yaxis"]["title"]["text"] == "query i"
    assert spec["xaxis"]["title"]["text"] == "key j"
    escaped = heatmap(np.eye(2), ["a", "b"], ["x", "y"], row_title="<b>").layout.yaxis.title.text
    assert escaped == "&lt;b&gt;"


def test_long_column_labels_may_slant_and_short_ones_stay_upright():
    pads = ["我", "<pad>", "<pad>", "<pad>"]
    spec = json.loads(heatmap(np.eye(4), pads, pads).to_json())["layout"]
    assert "tickangle" not in spec["xaxis"]  # Plotly slants them when they would collide
    assert spec["yaxis"]["tickangle"] == 0
    short = json.loads(heatmap(np.eye(2), ["我", "你"], ["我", "你"]).to_json())["layout"]
    assert short["xaxis"]["tickangle"] == 0


def test_a_unit_scale_can_share_its_top_between_figures():
    rng = np.random.default_rng(2)
    A = rng.random((30, 30)) / 10  # too many cells to print: the scale tops out at the max
    own = json.loads(heatmap(A, None, None, scale="unit").to_json())["data"][0]
    shared = json.loads(heatmap(A, None, None, scale="unit", bound=0.5).to_json())["data"][0]
    assert abs(own["zmax"] - A.max()) < 1e-6 and shared["zmax"] == 0.5


def test_clickable_cells_keep_the_axes_at_the_cells_edges():
    from ui.figures.pickable import pickable

    M = np.arange(6.0).reshape(2, 3)
    fig = pickable(heatmap(M, ["a", "b"], ["x", "y", "z"], square=True), M, ["a", "b"], list("xyz"))
    layout = json.loads(fig.to_json())["layout"]
    # the invisible click targets must not pad the ranges (a hole between the bar and the cells)
    assert layout["xaxis"]["range"] == [-0.5, 2.5]
    assert layout["yaxis"]["range"] == [1.5, -0.5]  # reversed: the first row on top


def test_head_panels_per_row_leave_room_for_their_numbers():
    assert panels_per_row(4, 2) == 2  # 4 heads of Q_h [5 × 2]: 2 and 2, not 4 of ~70 px
    assert panels_per_row(4, 5) == 2  # A_h [5 × 5]
    assert panels_per_row(3, 12) == 1  # wide panels: one a row
    assert panels_per_row(8, 1) == 4
    assert panels_per_row(1, 2) == 1


def test_the_softmax_steps_lead_names_the_largest_weight_and_the_scale_draws_it_brightest():
    """A's heatmap draws weights on WEIGHT_SCALE with weight 1 at its bright end (Viridis: bright
    yellow; its 0 end is the dark one); the step's "look here" line names the key attended to most
    by its weight, not its colour, in both languages."""
    from plotly.colors import convert_colors_to_same_type, get_colorscale

    from ui.figures.palette import WEIGHT_SCALE
    from ui.kit.i18n import t

    def luminance(colour: str) -> float:
        ((red, green, blue),), _ = convert_colors_to_same_type(colour, "tuple")
        return 0.2126 * red + 0.7152 * green + 0.0722 * blue

    scale = get_colorscale(WEIGHT_SCALE)
    low, high = scale[0][1], scale[-1][1]
    assert luminance(high) > luminance(low)  # the largest weight is the brightest cell
    # and the lead says it without colour (issue 64: no instruction relies on colour alone)
    assert "largest weight" in t("walkthrough.lead_softmax", "en")
    assert "权重最大" in t("walkthrough.lead_softmax", "zh")
    assert not {"bright", "yellow"} & set(t("walkthrough.lead_softmax", "en").split())
    for word in ("darkest", "最深"):
        assert word not in t("walkthrough.lead_softmax", "en") + t("walkthrough.lead_softmax", "zh")


def test_the_head_tiles_keep_a_thin_stripe_at_its_weight():
    """The gallery's tiles show each block's largest weight: an induction head's one-cell-wide
    stripe of 0.9 stays 0.9 (an average over 5 × 5 blocks would show 0.18)."""
    from ui.figures.tiles import _block_max

    n = 81
    A = np.zeros((n, n))
    A[np.arange(41, n), np.arange(1, 41)] = 0.9  # the second copy reads the first
    tiles = _block_max(A, 20)
    assert tiles.shape == (17, 17) and tiles.max() == 0.9
    blocks = A[:80, :80].reshape(16, 5, 16, 5).max(axis=(1, 3))
    np.testing.assert_array_equal(tiles[:16, :16], blocks)


def test_the_head_tiles_lay_the_layers_across_on_a_wide_screen():
    """Across: heads down, layers across; down (a phone): the layers down. The same tile, the
    same place in its own grid."""
    from ui.figures.tiles import _block_max, head_tiles

    rng = np.random.default_rng(3)
    maps = [[rng.random((6, 6)) for _ in range(2)] for _ in range(3)]  # 3 layers, 2 heads
    layers, heads = ["1", "2", "3"], ["h1", "h2"]
    across = np.asarray(head_tiles(maps, layers, heads, "t", True).data[0].z, dtype=float)
    down = np.asarray(head_tiles(maps, layers, heads, "t", False).data[0].z, dtype=float)
    assert across.shape == (2 * 6 + 1, 3 * 6 + 2) and down.shape == (3 * 6 + 2, 2 * 6 + 1)
    tile = _block_max(maps[2][1], 20)  # layer 3, head 2
    np.testing.assert_array_equal(across[7:13, 14:20], tile)
    np.testing.assert_array_equal(down[14:20, 7:13], tile)


def test_a_projector_keeps_each_row_of_the_lens_map_the_height_of_its_text():
    """19 rows of pieces at the projector's 18 px would overlap under the 720p cap of 410 px."""
    from ui.figures.heatmaps import piece_map
    from ui.figures.place import BIG_TEXT_PX, PROJECTOR_HEIGHT, projector_figure

    rows = [f"L{i}" for i in range(19)]
    fig = piece_map([["a", "b"]] * 19, np.full((19, 2), 0.5), rows, ["1", "2"], "t", "p")
    big = projector_figure(fig)
    inner = big.layout.height - big.layout.margin.t - big.layout.margin.b
    assert big.layout.height > PROJECTOR_HEIGHT and inner / 19 >= BIG_TEXT_PX + 6
    assert big.layout.margin.t >= BIG_TEXT_PX * 2 + 40  # the title over the column labels
