"""A whole class in real browsers, in Chinese and in English: one teacher (a 1280×720 screen, as
projected) and two students, one on a phone (390×844) and one on a laptop, each joining by the
room's code. Every string is the app's own (assets/strings), in the class's language.

The teacher opens a room (课堂) and starts; reloads and still drives it (the key nowhere in the page
or the address); asks a shape question while the students' screens hide the step's result; a
student presses "I'm lost" (没听懂) and the teacher's band counts it; the lock keeps the students'
navigation off, with the note; the students answer (one right, one wrong); Reveal shows the right
answer and its why line on every screen; the teacher closes the question and the summary, on
screen and as CSV, lists it with half the class right."""

import csv
import io
import re

import nbclient
import nbformat
import numpy as np
import pytest

from tests.e2e.conftest import SHOTS
from tests.support.browser import wait_for_sentence
from ui.kit.i18n import t
from ui.kit.settings import Settings
from ui.notebooks.cells import SAVED
from ui.work.traces import TraceKey, sentence_trace

SENTENCES = {"zh": "我 喜欢 学习 语言 模型", "en": "the cat sat on mats"}  # 5 tokens each
N, D_K = 5, 4  # d_model 8 and 2 heads (the defaults): d_k = 4
RIGHT, WRONG = f"{N} × {N}", f"{N} × {D_K}"  # the shape of S = QKᵀ, and Q's shape (not S's)
WHY = f"Q [{N} × {D_K}] × Kᵀ [{D_K} × {N}] → S [{N} × {N}]"  # worked out here, from the settings
LOCALES = {"zh": "zh-CN", "en": "en-US"}


class Say:
    """The app's strings in one language, as a page shows them (a Material icon drawn, not
    written)."""

    def __init__(self, lang: str):
        self.lang = lang

    def __call__(self, key: str, **params) -> str:
        return re.sub(r":material/\w+:\s*", "", t(key, self.lang, **params)).strip()

    def before(self, key: str, field: str, **params) -> str:
        """The string up to where ``{field}`` goes (a prefix that names no number)."""
        return self(key, **{**params, field: "\0"}).split("\0")[0]

    def pattern(self, key: str, **fields: str) -> re.Pattern:
        """The string as a pattern: each ``{field}`` stands for the regex given for it."""
        marks = {name: f"\0{i}\0" for i, name in enumerate(fields)}
        text = re.escape(self(key, **marks))
        for name, mark in marks.items():
            text = text.replace(re.escape(mark), fields[name])
        return re.compile(text)


def _see(s, words, timeout: int = 20000) -> None:
    """Wait until ``words`` (a string, or a compiled pattern) is on the page."""
    s.page.get_by_text(words).first.wait_for(timeout=timeout)


def _viewport_shot(s, name: str) -> None:
    """What the screen shows, as it is (no growing to the page's height)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    s.page.wait_for_timeout(500)
    s.page.screenshot(path=str(SHOTS / f"{name}.png"))


def _all_html(s) -> str:
    """The page's HTML and that of every frame in it (a component's iframe included)."""
    return "\n".join(frame.content() for frame in s.page.frames)


def _counts(teacher, say) -> tuple[int, int, int]:
    """The teacher's band: (following, exploring, lost) as it reads now."""
    counts = say.pattern("room.counts", following=r"\d+", exploring=r"\d+", lost=r"\d+")
    shown = re.compile(counts.pattern.rsplit(re.escape(" · "), 1)[0])  # (the icon's name after)
    line = teacher.page.get_by_text(shown).first.inner_text()
    following, exploring, lost = (int(x) for x in re.findall(r"\d+", line))
    return following, exploring, lost


def _wait_counts(teacher, say, lost: int, timeout_s: float = 20) -> tuple[int, int, int]:
    for _ in range(int(timeout_s * 2)):
        now = _counts(teacher, say)
        if now[2] == lost:
            return now
        teacher.page.wait_for_timeout(500)
    raise AssertionError(f"the band still reads {now}, not {lost} lost")


def _wait_teacher_cookie(s, code: str) -> None:
    """Until the browser keeps the room (the page's component writes the cookie a moment after
    the page is drawn): what a reload or a new address needs to stay the teacher."""
    for _ in range(40):
        kept = [c["value"] for c in s.context.cookies() if c["name"] == "self_attention_teacher"]
        if kept and kept[0].startswith(f"{code}:"):
            return
        s.page.wait_for_timeout(250)
    raise AssertionError("the browser never kept the room's cookie")


def _join(s, say, code: str) -> None:
    s.open(f"/room?lang={say.lang}")
    box = s.page.get_by_label(say("room.join_code"))
    box.fill(code)
    box.press("Enter")
    s.wait_idle()
    s.page.get_by_role("button", name=say("room.join_button"), exact=True).click()
    _see(s, say("room.following"))


def _answer(s, say, label: str) -> None:
    radio = s.page.get_by_test_id("stRadio").filter(has_text=say("room.q_choose"))
    radio.locator("label").filter(has_text=re.compile(rf"^[A-D]\. {re.escape(label)}$")).click()
    button = s.page.get_by_role("button", name=say("room.q_send"))
    s.page.wait_for_function("el => !el.disabled", arg=button.element_handle(), timeout=10000)
    button.click()
    sent = re.escape(say.before("room.q_sent", "answer"))  # "Sent: A. 5 × 5" (and what follows)
    _see(s, re.compile(rf"{sent}[A-D]\. {re.escape(label)}"))


@pytest.mark.e2e
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_whole_class(session, lang, tmp_path):
    say, locale, sentence = Say(lang), LOCALES[lang], SENTENCES[lang]
    shape_prompt, explain = say("room.q_shape"), say("walkthrough.explain_scores")[:14].strip()
    teacher = session(locale=locale, width=1280, height=720).open(f"/room?lang={lang}")
    teacher.page.get_by_role("button", name=say("room.open")).click()
    opened = say.pattern("room.opened", code=r"(\w{5})")  # the whole sentence: "Room" alone
    # is also a page's name in the navigation
    _see(teacher, opened)
    code = opened.search(teacher.page.get_by_text(opened).first.inner_text())[1]
    teacher.page.get_by_text(say("room.teacher_link")).click()
    teacher.page.locator("code").filter(has_text="key=").first.wait_for(timeout=10000)
    link = next(c for c in teacher.page.locator("code").all_inner_texts() if "key=" in c)
    key = link.split("key=")[1]
    assert len(key) >= 16
    teacher.page.get_by_role("button", name=say("room.go_teach")).click()
    band = say.before("room.teacher_band", "n", code=code).rsplit(" · ", 1)[0]  # "Room C · you…"
    _see(teacher, band)
    assert f"room={code}" in teacher.page.url and key not in teacher.page.url
    _wait_teacher_cookie(teacher, code)

    # the teacher's sentence and step (a changed address: still the teacher)
    teacher.open(f"/?room={code}&lang={lang}&step=scores&sentence={sentence.replace(' ', '+')}")
    _see(teacher, band)

    phone = session(locale=locale, width=390, height=844)
    laptop = session(locale=locale, width=1366, height=768)
    for student in (phone, laptop):
        _join(student, say, code)
        wait_for_sentence(student.page, sentence, lang)  # they follow: the teacher's sentence
        student.wait_charts()  # and the teacher's step, drawn
    _see(teacher, say("room.teacher_band", code=code, n=2))

    # a reload: still the teacher, and the key is nowhere in the page or its address
    teacher.page.reload()
    teacher.wait_idle()
    _see(teacher, band)
    assert f"room={code}" in teacher.page.url and key not in teacher.page.url
    assert key not in _all_html(teacher)
    teacher.page.get_by_role("button", name=say("room.ask")).wait_for(timeout=20000)  # it drives

    # a shape question: the students' screens hide the result while it is open
    teacher.page.locator(".st-key-q_kind_scores").click()  # (its first kind: a cell of S)
    teacher.page.get_by_role("option", name=say("room.q_kind_shape")).click()
    teacher.wait_idle()
    teacher.page.get_by_role("button", name=say("room.ask")).click()
    _see(teacher, say("room.answered", n=0, c=2))
    for student in (phone, laptop):
        _see(student, say("room.question_hides")[:20])
        _see(student, shape_prompt)
        assert student.page.get_by_test_id("stPlotlyChart").count() == 0
        assert student.page.get_by_text(say("shell.shape")).count() == 0  # the shapes line
        assert student.page.get_by_text(explain).count() == 0  # the explanation
    assert teacher.page.get_by_test_id("stPlotlyChart").count() >= 1  # the teacher's is drawn
    assert teacher.page.get_by_text(explain).count() == 1
    _viewport_shot(phone, f"class-{lang}-phone-question-hidden")

    # a student is lost: the teacher's band counts them
    assert _counts(teacher, say) == (2, 0, 0)
    phone.page.get_by_role("button", name=re.compile(re.escape(say("room.lost")))).click()
    _see(phone, say("room.lost_sent"))
    assert _wait_counts(teacher, say, lost=1) == (2, 0, 1)
    _viewport_shot(teacher, f"class-{lang}-teacher-band-1280")

    # the lock: every student's own navigation is off, and they are told why
    teacher.page.get_by_text(say("room.lock"), exact=True).click()
    next_word = say("walkthrough.next").split()[0]  # ("Next ▶": the word, whatever the arrow)
    for student in (phone, laptop):
        note = student.page.get_by_test_id("stMain").get_by_text(say("room.locked_note"))
        note.wait_for(timeout=20000)  # on the page itself: a phone's sidebar is folded away
        box = note.bounding_box()
        assert box and 0 <= box["y"] < student.page.viewport_size["height"] / 2, box
        nexts = student.page.get_by_role("button", name=say("walkthrough.next"))
        nexts.first.wait_for()
        student.page.wait_for_function(
            "word => [...document.querySelectorAll('button')]"
            ".filter(b => b.innerText.includes(word)).every(b => b.disabled)",
            arg=next_word,
            timeout=20000,
        )
        assert nexts.count() >= 1
    _viewport_shot(phone, f"class-{lang}-phone-locked")

    # they answer: the phone right, the laptop wrong
    _answer(phone, say, RIGHT)
    _answer(laptop, say, WRONG)
    _see(teacher, say("room.answered", n=2, c=2))

    # Reveal: the right answer, and its one line of why, on every screen
    teacher.page.get_by_role("button", name=say("room.reveal")).click()
    right, wrong = rf"[A-D]\. {RIGHT}", rf"[A-D]\. {WRONG}"
    _see(phone, say.pattern("room.q_you_were_right", answer=right))
    _see(laptop, say.pattern("room.q_you_were_off", answer=right, mine=wrong))
    for s in (teacher, phone, laptop):
        _see(s, say("room.why"))
        why = s.page.get_by_text(say("room.why")).first.locator("xpath=..").inner_text()
        assert WHY in why, why
    for student in (phone, laptop):  # the answer is in: the step's result is back
        student.wait_charts()
        _see(student, explain)
    _viewport_shot(phone, f"class-{lang}-phone-revealed")
    _viewport_shot(teacher, f"class-{lang}-teacher-revealed-1280")

    # the teacher closes the question; the summary lists it with half the class right
    teacher.page.get_by_role("button", name=say("room.close_question")).click()
    teacher.wait_idle()
    for student in (phone, laptop):
        student.page.get_by_text(shape_prompt).first.wait_for(state="detached", timeout=20000)
    teacher.page.get_by_text(say("room.summary", n=1)).click()
    sidebar = teacher.page.get_by_test_id("stSidebar")
    sidebar.get_by_text(f"1. QKᵀ · {shape_prompt}").wait_for(timeout=10000)  # the step named
    summary = say("room.summary_line", answers=2, right="50%")  # one of two right
    sidebar.get_by_text(summary).wait_for(timeout=10000)
    teacher.shot(f"class-{lang}-teacher-summary")
    with teacher.page.expect_download() as download:
        teacher.page.get_by_role("button", name=say("room.summary_csv")).click()
    table = list(csv.reader(io.StringIO(open(download.value.path(), encoding="utf-8-sig").read())))
    header = ["#", say("room.summary_question"), say("room.summary_answers")]
    assert table == [
        [*header, say("room.summary_right")],
        ["1", f"QKᵀ · {shape_prompt}", "2", "50%"],
    ]
    with teacher.page.expect_download() as download:  # the class notebook, the summary inside
        teacher.page.get_by_role("button", name=say("room.summary_notebook")).click()
    book = nbformat.read(download.value.path(), as_version=4)
    assert f"1. QKᵀ · {shape_prompt}" in book.cells[1].source and summary in book.cells[1].source
    nbclient.NotebookClient(book, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()  # fmt: skip
    seen = sentence_trace(TraceKey.of(Settings(lang=lang, sentence=sentence)))  # the class's
    np.testing.assert_allclose(np.load(tmp_path / SAVED)["A"], seen.trace.A, rtol=0, atol=1e-12)

    for s in (teacher, phone, laptop):
        s.assert_healthy()
    for student in (phone, laptop):
        assert key not in _all_html(student) and key not in student.page.url
