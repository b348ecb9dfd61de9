"""The lessons' table (ui/views/lessons.py): every item names a page and valid settings, and its
link carries the same settings."""

from core.tokens import tokenize
from ui.kit.settings import BY_URL
from ui.shell.registry import PAGES
from ui.views.lessons import LESSONS, LIKE, url

SCRIPTS = {page.script for page in PAGES}


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
    assert len(tokenize(t4["sentence"])) == 4 and t4["n_heads"] == "1" and t4["base"] == "1"
    loves = {
        (p["sentence"], p["pe"]) for p in params if p.get("sentence") in ("我喜欢你", "你喜欢我")
    }
    assert loves == {(s, pe) for s in ("我喜欢你", "你喜欢我") for pe in ("true", "false")}
    assert any(item.page == "hand-check" for lesson in LESSONS for item in lesson.items)


def test_links_carry_the_same_settings():
    item = LESSONS[1].items[5]
    link = url(item, "zh")
    assert link.startswith("/?lang=zh&sentence=") and "step=softmax" in link and "focus=2" in link
