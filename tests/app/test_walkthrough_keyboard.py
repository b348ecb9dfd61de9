"""A cell's provenance from the keyboard (issue 64): beside the query-row picker, the column
picker (ui/views/walkthrough/cell_choice.py) names a cell as a click on the chart does, and shows
the same story, every number against the oracle (tests/support/numbers.py's app_oracle); a click
sets both pickers; a new row keeps the column; "—" takes the story away; on a projector the
picker opens the notes beside the chart. And the player under reduced motion: a step a press."""

import pytest

from tests.support.app import player_button, run_app, slider
from tests.support.numbers import app_oracle
from tests.support.stories import check_cell_story
from ui.kit.i18n import t
from ui.kit.player import INTERVAL_S
from ui.kit.session import CELL, FOCUS_CHOSEN

SENTENCE = "we read the old book today"  # six tokens, each different
HEAD = 1  # the second head: a head mixed up with another shows
COLUMN = "cell_column"  # the column picker's widget key


def _story(at, lang: str, i: int, j: int) -> list[str]:
    """The lines of the chosen cell's box, titled row i and column j (as numbered)."""
    title = t("walkthrough.cell_title", lang, i=i, j=j)
    values = [m.value for m in at.markdown]
    index = next(k for k, value in enumerate(values) if title in value)
    return [line.removeprefix("- ") for line in values[index + 1].splitlines()]


@pytest.mark.parametrize("step", ["scores", "scaled", "mask", "softmax", "av"])
@pytest.mark.parametrize(
    "lang, base, mask, row, column",
    [("en", 0, "none", 2, 3), ("zh", 1, "causal", 1, 3), ("en", 1, "causal", 4, 0)],
)
def test_choosing_a_row_and_a_column_tells_the_clicked_cells_story(step, lang, base, mask, row,
                                                                   column):  # fmt: skip
    """The pickers' cell and a click's (the session's clicked cell, as the chart sets it) give the
    same lines, and those lines carry the oracle's numbers (a key after the query, under the
    causal mask, ends in 0)."""
    column = column % 4 if step == "av" else column  # O has d_v = 4 columns
    query = dict(step=step, lang=lang, sentence=SENTENCE, head=HEAD, base=base, mask=mask,
                 decimals=3)  # fmt: skip
    at = run_app(**query)
    assert not at.exception
    assert at.selectbox(key=COLUMN).value is None  # nothing chosen yet: the hint
    assert t("walkthrough.cell_hint", lang) in [c.value for c in at.caption]
    at.selectbox(key="focus").select(row).run()
    at.selectbox(key=COLUMN).select(column).run()
    assert not at.exception
    chosen = _story(at, lang, row + base, column + base)
    check_cell_story(step, chosen, app_oracle(SENTENCE, causal=mask == "causal"), HEAD, row,
                     column, decimals=3, base=base)  # fmt: skip

    clicked = run_app(**query)  # the same cell clicked: what _settle_focus keeps of a click
    clicked.session_state[CELL] = (step, row, column)
    clicked.session_state["focus"], clicked.session_state[FOCUS_CHOSEN] = row, True
    clicked.run()
    assert _story(clicked, lang, row + base, column + base) == chosen
    assert clicked.selectbox(key=COLUMN).value == column  # the click set the column picker too
    assert clicked.selectbox(key="focus").value == row


@pytest.mark.parametrize("lang, name", [("en", "Key (column)"), ("zh", "键（列）")])
def test_the_pickers_are_named_and_a_dimension_on_the_output_step(lang, name):
    at = run_app(step="softmax", lang=lang, sentence=SENTENCE, base=1)
    picker = at.selectbox(key=COLUMN)
    assert picker.label == name
    assert picker.options[0] == "—" and picker.options[1:] == [
        f"{j + 1} · {token}" for j, token in enumerate(SENTENCE.split())
    ]
    at = run_app(step="av", lang=lang, sentence=SENTENCE, base=1)
    assert at.selectbox(key=COLUMN).label == t("walkthrough.cell_dimension", lang)
    assert at.selectbox(key=COLUMN).options == ["—", "1", "2", "3", "4"]  # d_v = 4
    words = {"en": ("Click a cell", "or choose its column here"),
             "zh": ("点击", "或在这里选择它的列")}  # fmt: skip
    assert all(w in t("walkthrough.cell_hint", lang) for w in words[lang])
    at = run_app(step="qkv", lang=lang, sentence=SENTENCE)  # no cell to tell there
    assert not [s for s in at.selectbox if s.key == COLUMN]


def test_a_new_row_keeps_the_column_and_none_takes_the_story_away():
    at = run_app(step="softmax", lang="en", sentence=SENTENCE, head=HEAD, base=0, decimals=4)
    at.selectbox(key=COLUMN).select(2).run()
    o = app_oracle(SENTENCE)
    focus = at.selectbox(key="focus").value
    check_cell_story("softmax", _story(at, "en", focus, 2), o, HEAD, focus, 2, 4, base=0)
    at.selectbox(key="focus").select(1).run()  # another query row: the same key
    assert at.selectbox(key=COLUMN).value == 2
    check_cell_story("softmax", _story(at, "en", 1, 2), o, HEAD, 1, 2, decimals=4, base=0)
    at.selectbox(key=COLUMN).select(None).run()
    assert CELL not in at.session_state
    assert t("walkthrough.cell_hint", "en") in [c.value for c in at.caption]
    at.selectbox(key=COLUMN).select(5).run()
    at.button(key="next_step").click().run()  # another step: its own cells, none chosen
    assert at.selectbox(key=COLUMN).value is None
    assert t("walkthrough.cell_hint", "en") in [c.value for c in at.caption]


def test_the_numbering_relabels_the_column_picker():
    at = run_app(step="scores", lang="en", sentence=SENTENCE, base=0)
    at.selectbox(key=COLUMN).select(3).run()
    assert at.selectbox(key=COLUMN).format_func(3) == "3 · old"
    at.toggle(key="base_toggle").set_value(True).run()
    assert at.selectbox(key=COLUMN).value == 3
    assert at.selectbox(key=COLUMN).format_func(3) == "4 · old"
    assert _story(at, "en", 6, 4)  # row 6 ("today"), key 4, numbered from 1


def test_on_a_projector_the_column_picker_heads_the_notes():
    """The band keeps to one line at 1280 px (tests/e2e/test_projector_e2e.py): the column
    picker opens the notes beside the chart instead."""
    at = run_app(step="softmax", lang="zh", sentence=SENTENCE, big="true", base=1)
    assert not at.exception
    band, notes = at.columns[1], at.columns[4]  # ◀ | title, formula, pickers | ▶; chart | notes
    assert band.selectbox(key="focus").label == "查询行"
    assert not [s for s in band.selectbox if s.key == COLUMN]
    assert notes.selectbox(key=COLUMN).label == "键（列）"
    notes.selectbox(key=COLUMN).select(0).run()
    focus = at.selectbox(key="focus").value
    lines = _story(at, "zh", focus + 1, 1)
    check_cell_story("softmax", lines, app_oracle(SENTENCE), 0, focus, 0, decimals=2, base=1)


def test_reduced_motion_steps_once_a_press(player_clock):
    """A browser that asks for reduced motion answers Play's timer at once with "once" (the
    ticker's callback sets ``<key>_once``): the player steps once and stops playing."""
    at = run_app("loop-vs-matrix", lang="en")
    player_button(at, "loop_rows").click().run()
    assert slider(at, "loop_rows").value == 1
    at.session_state["loop_rows_once"] = True  # what the reduced-motion tick says
    at.run()
    assert slider(at, "loop_rows").value == 2  # one step, though no time has passed
    assert "Play" in player_button(at, "loop_rows").label  # and it stopped
    player_clock.now += 5 * INTERVAL_S
    at.run()
    assert slider(at, "loop_rows").value == 2
