"""The lessons' table (core/lessons/plan.py): every item names a page and valid settings, its link
carries the same settings and its place in the lesson, nothing is used before it is shown, and
no item changes the learner's numbering."""

from dataclasses import replace

import pytest

from core.lessons.plan import LESSONS, LIKE, MOVIE, NEEDS, position, used_too_early
from core.tokens import tokenize
from ui.kit.i18n import t
from ui.kit.number_text import numbered
from ui.kit.settings import BY_URL
from ui.shell.lesson_band import item_title
from ui.shell.registry import PAGES
from ui.views.lessons import url
from ui.views.walkthrough.steps import NAMES

SCRIPTS = {page.script for page in PAGES}


def item_keyed(lesson_key: str, key: str):
    lesson = next(each for each in LESSONS if each.key == lesson_key)
    return lesson, next(item for item in lesson.items if item.key == key)


def test_every_item_names_a_page_and_valid_settings():
    for lesson in LESSONS:
        for item in lesson.items:
            assert item.page in SCRIPTS, item
            for name, value in item.params:
                if name in BY_URL:
                    assert BY_URL[name].valid(value), (item.key, name, value)


def test_the_issues_examples_are_all_there():
    params = [dict(item.params) for lesson in LESSONS for item in lesson.items]
    assert {"tr_text": "这 部 电影 很 好看", "tr_focus": "好看", "tr_key": "电影"}.items() <= next(
        p for p in params if p.get("tr_focus")
    ).items()
    like = next(p for p in params if p.get("sentence") == LIKE)
    assert tokenize(LIKE)[int(like["focus"])] == "学习"
    t4 = next(p for p in params if p.get("d_model") == "64")
    assert len(tokenize(t4["sentence"])) == 4 and t4["n_heads"] == "1"
    loves = {
        (p["sentence"], p["pe"]) for p in params if p.get("sentence") in ("我喜欢你", "你喜欢我")
    }
    assert loves == {(s, pe) for s in ("我喜欢你", "你喜欢我") for pe in ("true", "false")}
    assert any(item.page == "hand-check" for lesson in LESSONS for item in lesson.items)


def test_links_carry_the_same_settings_and_the_place_in_the_lesson():
    lesson, item = item_keyed("pipeline", "like_softmax")
    assert lesson.items.index(item) == 3  # the fourth item: after Q K V, the scores, ÷√d_k
    link = url(item, "zh", lesson)
    assert link.startswith("/?lang=zh&sentence=") and "step=softmax" in link and "focus=2" in link
    assert link.endswith("&lesson=2&item=4")
    assert "lesson=" not in url(item, "zh")  # without its lesson: the view alone


def test_the_query_row_of_the_lookup_is_the_lessons_own():
    """The projections page's query picker has no URL key: the item sets it (学习, 好看)."""
    for lesson_key, sentence, word in (("pipeline", LIKE, "学习"), ("transformer", MOVIE, "好看")):
        _, item = next(
            (lesson, item)
            for lesson in LESSONS
            for item in lesson.items
            if lesson.key == lesson_key and item.page == "projections"
        )
        assert dict(item.params)["sentence"] == sentence
        assert tokenize(sentence)[dict(item.state)["pj_q"]] == word


def test_nothing_is_used_before_it_is_shown():
    assert used_too_early() == []


def test_the_order_check_finds_the_reviewed_order():
    """Lesson 2 as the review found it, 'why Q and K need projections' second: it used the
    scores, the scaling, the softmax and A V that the items after it introduce."""
    lesson, projections = item_keyed("pipeline", "projections")
    rest = [item for item in lesson.items if item is not projections]
    old = replace(lesson, items=(rest[0], projections, *rest[1:]))
    found = used_too_early((LESSONS[0], old))
    assert {(key, number) for key, number, _ in found} == {("pipeline", 2)}
    assert {idea for *_, idea in found} == {"scores", "scaled", "softmax", "av"}
    # and an idea that no lesson ever shows is found wherever it is used
    lone = replace(LESSONS[0], items=(replace(LESSONS[0].items[0], uses=("nowhere",)),))
    assert used_too_early((lone,)) == [("matrices", 1, "nowhere")]


def test_a_walkthrough_step_needs_only_steps_before_it():
    assert set(NEEDS) == set(NAMES)
    for step, needs in NEEDS.items():
        assert all(NAMES.index(need) < NAMES.index(step) for need in needs), step
    for lesson in LESSONS:
        for item in lesson.items:
            if item.page == "walkthrough":
                assert set(NEEDS[dict(item.params)["step"]]) <= set(item.uses), item.key


def test_no_item_sets_the_numbering_and_its_title_follows_the_learners():
    """One numbering for the app: a lesson's link leaves the learner's (or the room's) as it is,
    and its titles number rows and layers as the pages do."""
    assert not [item.key for lesson in LESSONS for item in lesson.items
                if "base" in dict(item.params)]  # fmt: skip
    t4 = next(item for lesson in LESSONS for item in lesson.items if item.key == "t4_scores")
    lens = next(item for lesson in LESSONS for item in lesson.items if item.key == "inside_lens")
    assert "q₁·k₁ … q₄·k₄" in item_title(t4, 1) and "q₀·k₀ … q₃·k₃" in item_title(t4, 0)
    assert "13–16" in item_title(lens, 1) and "17" in item_title(lens, 1)
    assert "12–15" in item_title(lens, 0) and "16" in item_title(lens, 0)
    assert "从层 17 开始" in t("lessons.item_inside_lens", "zh", **numbered(1))


@pytest.mark.parametrize(
    "lesson, item, found",
    [("2", "1", (1, 0)), ("2", "11", (1, 10)), ("4", "6", (3, 5)), ("2", "12", None),
     ("5", "4", (4, 3)), ("5", "5", None), ("0", "1", None), ("6", "1", (5, 0)),
     ("6", "5", None), ("7", "1", None), ("2", "0", None),
     ("x", "1", None), (None, None, None)],
)  # fmt: skip
def test_a_urls_place_names_a_lesson_and_an_item_from_one(lesson, item, found):
    at = position(lesson, item)
    assert (at and (LESSONS.index(at[0]), at[1])) == found


def _anchors(page: str) -> set[str]:
    """The anchors a page's headings carry: in its script and its view's modules."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    view = root / "ui" / "views" / page.replace("-", "_")
    files = [root / "page_scripts" / f"{page}.py", *view.rglob("*.py"), view.with_suffix(".py")]
    text = "".join(f.read_text() for f in files if f.exists())
    return set(re.findall(r'anchor="([a-z-]+)"', text))


def test_every_items_section_is_a_heading_its_page_draws():
    """An item lands on the section it is about: its page draws a heading with that anchor. The
    reviewed case: "switch off the three strongest induction heads" lands on that section, not
    on the logit lens 5,000 px above it."""
    for lesson in LESSONS:
        for item in lesson.items:
            if item.section:
                assert item.section in _anchors(item.page), (item.key, item.section)
    _, off = item_keyed("inside", "inside_off")
    assert off.section == "heads-off"
    below_the_top = {
        item.key for lesson in LESSONS[3:] for item in lesson.items
        if item.page in ("generate", "inside", "train") and item.section
    }  # fmt: skip
    assert {"gen_next", "gen_sink", "inside_lens", "inside_fact", "inside_induction",
            "inside_off", "train_backward", "train_scaling"} <= below_the_top  # fmt: skip
