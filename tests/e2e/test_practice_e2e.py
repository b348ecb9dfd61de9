"""Write attention yourself (issue 66) in Chromium, one page load per language: a wrong line
sent with Enter is named in the learner's language and stays in its box, the right one sent with
Check is right, a hostile line is refused in words; no traceback, nothing fetched from outside,
and each verdict reaches the screen reader's live region."""

import pytest

from ui.kit.i18n import t

LIVE = "() => document.querySelector('[data-testid=announcer_live]')?.textContent ?? ''"
WRONG, RIGHT = "softmax(S_masked, axis=0)", "softmax(S_masked, axis=-1)"
HOSTILE = "__import__('os')"


def _send(s, line: str, words: str, enter: bool = True) -> None:
    """Type ``line`` into A's box and send it (Enter, or the Check button); wait for ``words``
    in a verdict's box."""
    box = s.page.locator(".st-key-practice_line_A input")
    box.fill(line)
    if enter:
        box.press("Enter")
    else:
        s.page.locator(".st-key-practice_check_A button").click()
    s.page.locator("[data-testid=stAlert]", has_text=words).first.wait_for(timeout=30000)
    s.wait_idle()
    assert box.input_value() == line  # what the learner typed stays in the box
    s.assert_healthy()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_write_a_step_wrong_then_right_then_hostile(session, lang):
    s = session(locale="zh-CN" if lang == "zh" else "en-US").open(f"/practice?lang={lang}&task=A")
    s.page.wait_for_selector(".st-key-practice_line_A input", timeout=30000)
    s.page.wait_for_selector("[data-announce=practice]", state="attached")
    s.wait_idle()
    s.page.wait_for_timeout(500)  # the live region has read the page (its first words unsaid)
    assert t("practice.title", lang) in s.page.inner_text("body")
    assert s.page.locator(".st-key-practice_hint_A").count() == 0  # no hint before a try
    wrong = t("practice.mistake_wrong_axis", lang)
    _send(s, WRONG, wrong[:12])
    s.wait_charts(3)
    assert wrong in s.page.inner_text("body")
    s.page.wait_for_function(f"({LIVE})().includes({wrong[:12]!r})", timeout=5000)
    _send(s, RIGHT, t("practice.right", lang, name="A", diff="0")[:5], enter=False)
    s.page.wait_for_function(f"!({LIVE})().includes({wrong[:12]!r})", timeout=5000)
    _send(s, HOSTILE, "__import__")
    assert "Traceback" not in s.page.inner_text("body")
    s.shot(f"practice-{lang}")
