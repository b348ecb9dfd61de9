"""The walkthrough on a projector (?big=true) in AppTest: the pickers in the band, a wide step
paged through its charts with ◀ ▶ (and back to its first chart at every step), every text of a
step's chart given its size (none left to the theme, whose size depends on when the chart
mounted), and the normal page unchanged."""

import pytest

from tests.support.app import charts, run_app
from ui.views.walkthrough.steps import BY_NAME, NAMES

CELL_PX, TEXT_PX = 24, 18  # the least for the back row (issue 24)


def _titles(at) -> list[str]:
    """The step's own charts' titles (not the weights', in their closed expander)."""
    titles = [spec["layout"].get("title", {}).get("text", "") for spec in charts(at)]
    return [title for title in titles if not title.startswith(("W_", "<b>W_"))]


def test_the_pickers_sit_in_the_projector_band():
    at = run_app(step="scores", lang="zh", big="true")
    assert not at.exception
    band = at.columns[1]  # ◀ | title, formula, pickers | ▶
    assert band.selectbox(key="focus").label == "查询行"
    assert len(band.button_group) == 1  # the head picker
    normal = run_app(step="scores", lang="zh")
    assert normal.selectbox(key="focus").label == "查询行"  # under the heading, as before
    assert not any(len(column.selectbox) for column in normal.columns)


@pytest.mark.parametrize(
    "lang, step, words",
    [("en", "qkv", "4. Three projections"), ("zh", "qkv", "4. 三个投影"),
     ("en", "av", "9. Weighted sum of values"), ("zh", "softmax", "8. 按行 softmax")],
)  # fmt: skip
def test_the_band_gives_the_titles_words_before_its_colon_then_the_formula(lang, step, words):
    at = run_app(step=step, lang=lang, big="true")
    line = at.columns[1].markdown[0].value
    assert line.startswith(f"**{words}** &nbsp; $") and line.endswith("$"), line
    normal = run_app(step=step, lang=lang)  # the page's own heading keeps the whole title
    whole = normal.subheader[0].value if normal.subheader else ""
    assert whole.startswith(words) and len(whole) > len(words) + 2, whole


def test_a_band_without_a_formula_keeps_the_whole_title():
    at = run_app(step="block", lang="en", big="true")
    assert at.columns[1].markdown[0].value == (
        "**11. The rest of the block: residual, LayerNorm, feed-forward**"
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_wide_step_pages_through_its_charts(lang):
    at = run_app(step="qkv", lang=lang, big="true")
    assert [title[:1] for title in _titles(at)] == ["Q"]  # one chart at a time
    assert at.button(key="prev_part").disabled and not at.button(key="next_part").disabled
    assert at.button(key="next_part").help  # its tooltip, in the page's language
    for first in ("K", "V"):
        at.button(key="next_part").click().run()
        assert [title[:1] for title in _titles(at)] == [first]
    assert at.button(key="next_part").disabled and not at.button(key="prev_part").disabled
    at.button(key="next_step").click().run()  # another step, then back: its first chart again
    at.button(key="prev_step").click().run()
    assert at.session_state["step"] == "qkv"
    assert [title[:1] for title in _titles(at)] == ["Q"]


def test_every_wide_step_names_each_of_its_charts():
    for step in NAMES:
        parts = BY_NAME[step].parts
        if not parts:
            continue
        at = run_app(step=step, lang="en", big="true")
        assert not at.exception
        seen = []
        for index in range(len(parts)):
            if index:
                at.button(key="next_part").click().run()
            assert f"**{parts[index]}** · {index + 1} of {len(parts)}" in [
                m.value for m in at.markdown
            ]
            seen += _titles(at)
        assert len(seen) == len(set(seen)) == len(parts), (step, seen)  # each chart once


def test_the_normal_page_draws_a_wide_steps_charts_side_by_side():
    at = run_app(step="qkv", lang="en")
    assert [title[:1] for title in _titles(at)] == ["Q", "K", "V"]
    assert not [b for b in at.button if b.key in ("prev_part", "next_part")]


@pytest.mark.parametrize("step", NAMES)
def test_every_text_of_a_projected_chart_has_its_size(step):
    at = run_app(step=step, lang="zh", big="true", mask="causal")
    assert not at.exception
    specs = [s for s in charts(at) if not s["layout"].get("title", {}).get("text", "")
             .replace("<b>", "").startswith("W_")]  # fmt: skip
    assert specs, step
    for spec in specs:
        layout = spec["layout"]
        for axis in ("xaxis", "yaxis"):
            assert layout[axis]["tickfont"]["size"] >= TEXT_PX, (step, axis)
            assert layout[axis]["title"]["font"]["size"] >= TEXT_PX, (step, axis)
        assert layout["font"]["size"] >= TEXT_PX
        assert "height" not in layout  # the free height, from the page
        for note in layout.get("annotations", []):
            assert note["font"]["size"] >= TEXT_PX, (step, note["text"])
        for trace in spec["data"]:
            if trace["type"] == "heatmap" and trace.get("text") is not None:
                assert trace["textfont"]["size"] >= CELL_PX, step  # n = 5 and d_model = 8
                assert trace["colorbar"]["tickfont"]["size"] >= TEXT_PX, step


@pytest.mark.parametrize("big", ["true", None])
@pytest.mark.parametrize("step", ["scores", "av", "heads"])
def test_a_shapes_line_keeps_each_bracket_on_one_line(step, big):
    """In the projector's narrow notes column, and on a phone, the line wraps between its parts,
    never inside "[5 × 5]": each bracket's spaces are no-break spaces, and only those."""
    import re

    at = run_app(step=step, lang="zh", **({"big": big} if big else {}))
    line = next(m.value for m in at.markdown if m.value.startswith(("**形状", "**Shape")))
    brackets = re.findall(r"\[[^\]]*\]", line)
    assert brackets and all(" " not in b and "\u00a0×\u00a0" in b for b in brackets), line
    assert re.search(r"[\w)ᵀ]\u00a0\[", line)  # a symbol stays with its bracket: "V\u00a0[5 × 4]"
    outside = re.sub(r"\S?\u00a0?\[[^\]]*\]", "", line)
    assert "\u00a0" not in outside and " " in outside  # between the parts it may still wrap


@pytest.mark.parametrize(
    "page, query",
    [
        ("walkthrough", {"step": "qkv"}),  # with its weights' charts, in their expander
        ("walkthrough", {"step": "heads"}),  # W_O's
        ("multi-head", {}),
        ("masks", {}),
        ("flash", {}),
        ("scaling", {}),
        ("trained", {}),
    ],
)
def test_every_chart_on_a_projector_prints_at_least_18_px(page, query):
    """Not only a step's own chart: every chart a projected page draws (a weights expander, the
    other pages) writes its text at the back row's 18 px or more."""
    at = run_app(page, lang="zh", big="true", **query)
    assert not at.exception
    specs = charts(at)
    assert specs
    for spec in specs:
        layout = spec["layout"]
        assert layout.get("font", {}).get("size", 0) >= TEXT_PX, layout.get("title")
        for name, axis in layout.items():
            if name.startswith(("xaxis", "yaxis")):
                assert axis.get("tickfont", {}).get("size", 0) >= TEXT_PX, (name, layout["title"])
        for trace in spec["data"]:
            if trace.get("type") == "heatmap" and trace.get("text") is not None:
                assert trace.get("textfont", {}).get("size", 0) >= TEXT_PX, layout.get("title")
