"""The keyboard walk (issue 64), in Chromium with keys alone, no mouse: from the softmax step, a
cell's provenance (the column picker beside the query row, ui/views/walkthrough/cell_choice.py),
its story's every number against the oracle; on /loop-vs-matrix, Play started and paused with
Enter and Space, the focus on its button all the while, each step said in the live region; and
under reduced motion one step a press. Each walk counts its keypresses and prints them."""

import pytest

from tests.support.numbers import app_oracle
from tests.support.stories import check_cell_story
from ui.kit.i18n import t

SENTENCE = "这 部 电影 很 好看"  # the page's own example
FOCUSED = """() => { const a = document.activeElement, box = a.closest('[class*="st-key-"]');
  return box ? box.className.match(/st-key-(\\S+)/)[1] : a.tagName; }"""
SLIDER = ".st-key-loop_rows input[type=range]"
LIVE = "() => document.querySelector('[data-testid=announcer_live]')?.textContent ?? null"


class Keys:
    """page.keyboard.press, counted."""

    def __init__(self, page):
        self.page, self.count = page, 0

    def press(self, key: str, wait: int = 120) -> None:
        self.page.keyboard.press(key)
        self.count += 1
        self.page.wait_for_timeout(wait)

    def focused(self) -> str:
        """The key of the Streamlit container that holds the focus (else the element's tag)."""
        return self.page.evaluate(FOCUSED)

    def tab_to(self, key: str, most: int = 60) -> None:
        """Tab until the focus is inside container ``key``: first the page's "skip to main
        content" link, where there is one, as a keyboard user would take it."""
        self.press("Tab")
        if self.page.evaluate("() => document.activeElement.matches('a[href^=\"#\"]')"):
            self.press("Enter")
        while self.focused() != key:
            assert self.count < most, f"{key} not reached in {most} keys"
            self.press("Tab")


def _open(session, path: str, reduced: bool = False):
    s = session(width=1400, height=900)
    if reduced:
        s.page.emulate_media(reduced_motion="reduce")
    s.open(path)
    return s


@pytest.mark.e2e
def test_the_keyboard_reaches_a_cells_provenance(session):
    s = _open(session, "/?lang=zh&step=softmax")
    s.wait_charts()
    s.page.wait_for_selector(".st-key-cell_column input")
    keys = Keys(s.page)
    keys.tab_to("cell_column")  # past the query row ("5 · 好看", the last token)
    for _ in range(3):  # open the list on "—", then down to "2 · 部"
        keys.press("ArrowDown")
    keys.press("Enter")
    s.wait_idle()
    story = s.page.locator(".st-key-cell_story")
    story.wait_for(timeout=15000)
    title, *lines = story.inner_text().splitlines()
    assert "选中的格子（行 5，列 2）" in title, title
    # q_5 and k_2, their products and sum, ÷ √d_k, the mask entry, the row's exponentials and
    # their sum, a_5,2: against the oracle, numbered from 1 and at 2 decimals as the page opens
    check_cell_story("softmax", lines, app_oracle(SENTENCE), 0, 4, 1, decimals=2, base=1)
    assert keys.focused() == "cell_column"  # the focus stays where the learner left it
    s.page.wait_for_function(LIVE, timeout=5000)  # and said where the learner is
    said = s.page.evaluate(LIVE)
    assert said.startswith("选中的格子（行 5，列 2）") and said.endswith(lines[-1].replace("*", ""))
    print(f"the keyboard walk to a cell's provenance: {keys.count} keypresses")
    s.assert_healthy()


def _value(s) -> int:
    return int(s.page.locator(SLIDER).input_value())


def _said(lang: str, i: int) -> str:
    """What the live region says at step i of the loop page's player (5 tokens)."""
    return t("player.announce", lang, label=t("loop_vs_matrix.loop_rows_done", lang), i=i, n=5)


def _button(s) -> str:
    return s.page.locator(".st-key-loop_rows_button button").inner_text()


@pytest.mark.e2e
def test_play_and_pause_from_the_keyboard_keep_the_focus_and_say_each_step(session):
    s = _open(session, "/loop-vs-matrix?lang=zh")
    s.page.wait_for_selector(SLIDER)
    keys = Keys(s.page)
    keys.tab_to("loop_rows_button")
    assert _value(s) == 1 and "播放" in _button(s)
    keys.press("Enter")  # Play
    s.page.wait_for_function(f"document.querySelector('{SLIDER}')?.value >= 3", timeout=8000)
    assert keys.focused() == "loop_rows_button"  # across ticks, not fallen to <body>
    assert "暂停" in _button(s)
    keys.press("Space")  # Pause
    s.page.wait_for_timeout(600)
    paused = _value(s)
    assert "播放" in _button(s) and keys.focused() == "loop_rows_button"
    assert s.page.evaluate(LIVE) == _said("zh", paused)  # each step said, the last one too
    s.page.wait_for_timeout(2500)
    assert _value(s) == paused  # it stays paused
    print(f"the keyboard walk to Play and Pause: {keys.count} keypresses")
    s.assert_healthy()


@pytest.mark.e2e
def test_under_reduced_motion_each_press_is_one_step(session):
    s = _open(session, "/loop-vs-matrix?lang=en", reduced=True)
    s.page.wait_for_selector(SLIDER)
    keys = Keys(s.page)
    keys.tab_to("loop_rows_button")
    for expected in (2, 3):
        keys.press("Enter" if expected == 2 else "Space")
        s.page.wait_for_function(f"document.querySelector('{SLIDER}')?.value >= {expected}",
                                 timeout=8000)  # fmt: skip
        s.page.wait_for_timeout(2500)  # more than two ticks' time: nothing moves on its own
        assert _value(s) == expected
        assert "Play" in _button(s) and keys.focused() == "loop_rows_button"
        assert s.page.evaluate(LIVE) == _said("en", expected)
    print(f"reduced motion, two presses: {keys.count} keypresses")
    s.assert_healthy()


@pytest.mark.e2e
def test_a_click_still_sets_both_pickers(session):
    """The mouse's way in, unchanged: a click on cell (1, 3) of A moves the query row and the
    column picker to that cell."""
    s = _open(session, "/?lang=en&step=softmax&sentence=a%20b%20c%20d&base=0")
    s.wait_charts()
    x, y = s.page.evaluate(
        """() => { const gd = document.querySelector('.st-key-fig_softmax .js-plotly-plot');
        const L = gd._fullLayout, box = gd.getBoundingClientRect();
        return [box.left + L.xaxis._offset + L.xaxis.l2p(3),
                box.top + L.yaxis._offset + L.yaxis.l2p(1)]; }"""
    )
    s.page.mouse.click(x, y)
    s.page.wait_for_timeout(500)
    s.wait_idle()
    s.page.locator(".st-key-cell_story").wait_for(timeout=15000)
    assert s.page.locator(".st-key-focus input").input_value() == "1 · b"
    assert s.page.locator(".st-key-cell_column input").input_value() == "3 · d"
    s.assert_healthy()
