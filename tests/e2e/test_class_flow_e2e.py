"""A whole class in Chinese, in real browsers: one teacher (a 1280×720 screen, as projected) and
two students, one on a phone (390×844) and one on a laptop, each joining by the room's code.

The teacher opens a 课堂 and starts; reloads and still drives it (the key nowhere in the page or
the address); asks a shape question while the students' screens hide the step's result; a student
presses 没听懂 and the teacher's band counts it; the lock keeps the students' navigation off, with
the note; the students answer (one right, one wrong); Reveal shows the right answer and its why
line on every screen; the teacher closes the question and the summary, on screen and as CSV,
lists it with half the class right."""

import csv
import io
import re

import pytest

from tests.e2e.conftest import SHOTS

SENTENCE = "我 喜欢 学习 语言 模型"  # 5 tokens; d_model 8 and 2 heads (the defaults): d_k = 4
N, D_K = 5, 4
RIGHT, WRONG = f"{N} × {N}", f"{N} × {D_K}"  # the shape of S = QKᵀ, and Q's shape (not S's)
WHY = f"Q [{N} × {D_K}] × Kᵀ [{D_K} × {N}] → S [{N} × {N}]"  # worked out here, from the settings
SHAPE_PROMPT = "这一步的结果是什么形状？"
HIDDEN = "老师正在向全班提问"
EXPLAIN_SCORES = "第 (i, j) 格是点积"  # the scores step's explanation (walkthrough.explain_scores)


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


def _counts(teacher) -> tuple[int, int, int]:
    """The teacher's band: (following, exploring, lost) as it reads now."""
    line = teacher.page.get_by_text(re.compile(r"跟随 \d+ · 自行探索 \d+")).first.inner_text()
    following, exploring, lost = (int(x) for x in re.findall(r"\d+", line))
    return following, exploring, lost


def _wait_counts(teacher, lost: int, timeout_s: float = 20) -> tuple[int, int, int]:
    for _ in range(int(timeout_s * 2)):
        now = _counts(teacher)
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


def _join(s, code: str) -> None:
    s.open("/room?lang=zh")
    box = s.page.get_by_label("课堂代码")
    box.fill(code)
    box.press("Enter")
    s.wait_idle()
    s.page.get_by_role("button", name="加入", exact=True).click()
    _see(s, "正在跟着老师")


def _answer(s, label: str) -> None:
    radio = s.page.get_by_test_id("stRadio").filter(has_text="你的答案")
    radio.locator("label").filter(has_text=re.compile(rf"^[A-D]\. {re.escape(label)}$")).click()
    button = s.page.get_by_role("button", name="提交答案")
    s.page.wait_for_function("el => !el.disabled", arg=button.element_handle(), timeout=10000)
    button.click()
    _see(s, re.compile(rf"已提交：[A-D]\. {re.escape(label)}"))


@pytest.mark.e2e
def test_a_whole_class_in_chinese(session):
    teacher = session(locale="zh-CN", width=1280, height=720).open("/room?lang=zh")
    teacher.page.get_by_role("button", name="开一个课堂").click()
    _see(teacher, re.compile(r"课堂 \w{5} 已开启"))
    code = re.search(r"课堂 (\w{5}) 已开启", teacher.page.get_by_text("已开启").inner_text())[1]
    teacher.page.get_by_text("你的老师链接").click()
    teacher.page.locator("code").filter(has_text="key=").first.wait_for(timeout=10000)
    link = next(c for c in teacher.page.locator("code").all_inner_texts() if "key=" in c)
    key = link.split("key=")[1]
    assert len(key) >= 16
    teacher.page.get_by_role("button", name="在当前浏览器中开始上课").click()
    _see(teacher, f"课堂 {code} · 你是老师")
    assert f"room={code}" in teacher.page.url and key not in teacher.page.url
    _wait_teacher_cookie(teacher, code)

    # the teacher's sentence and step (a changed address: still the teacher)
    teacher.open(f"/?room={code}&lang=zh&step=scores&sentence={SENTENCE.replace(' ', '+')}")
    _see(teacher, f"课堂 {code} · 你是老师")

    phone = session(locale="zh-CN", width=390, height=844)
    laptop = session(locale="zh-CN", width=1366, height=768)
    for student in (phone, laptop):
        _join(student, code)
        box = student.page.get_by_test_id("stTextInput").locator("input").first
        student.page.wait_for_function(
            "([el, s]) => el.value === s", arg=[box.element_handle(), SENTENCE], timeout=20000
        )  # they follow: the teacher's sentence
        student.wait_charts()  # and the teacher's step, drawn
    _see(teacher, "已连接 2 名学生")

    # a reload: still the teacher, and the key is nowhere in the page or its address
    teacher.page.reload()
    teacher.wait_idle()
    _see(teacher, f"课堂 {code} · 你是老师")
    assert f"room={code}" in teacher.page.url and key not in teacher.page.url
    assert key not in _all_html(teacher)
    teacher.page.get_by_role("button", name="向全班提问").wait_for(timeout=20000)  # it drives

    # a shape question: the students' screens hide the result while it is open
    teacher.page.locator(".st-key-q_kind_scores").click()  # (its first kind: a cell of S)
    teacher.page.get_by_role("option", name="结果的形状").click()
    teacher.wait_idle()
    teacher.page.get_by_role("button", name="向全班提问").click()
    _see(teacher, "已答 0 / 2")
    for student in (phone, laptop):
        _see(student, HIDDEN)
        _see(student, SHAPE_PROMPT)
        assert student.page.get_by_test_id("stPlotlyChart").count() == 0
        assert student.page.get_by_text("形状：").count() == 0  # the shapes line
        assert student.page.get_by_text(EXPLAIN_SCORES).count() == 0  # the explanation
    assert teacher.page.get_by_test_id("stPlotlyChart").count() >= 1  # the teacher's is drawn
    assert teacher.page.get_by_text(EXPLAIN_SCORES).count() == 1
    _viewport_shot(phone, "class-zh-phone-question-hidden")

    # a student is lost: the teacher's band counts them
    assert _counts(teacher) == (2, 0, 0)
    phone.page.get_by_role("button", name=re.compile("没听懂")).click()
    _see(phone, "老师已经知道有同学在这里没听懂")
    assert _wait_counts(teacher, lost=1) == (2, 0, 1)
    _viewport_shot(teacher, "class-zh-teacher-band-1280")

    # the lock: every student's own navigation is off, and they are told why
    teacher.page.get_by_text("全班跟随").click()
    for student in (phone, laptop):
        note = student.page.get_by_test_id("stMain").get_by_text("老师已设置全班跟随")
        note.wait_for(timeout=20000)  # on the page itself: a phone's sidebar is folded away
        box = note.bounding_box()
        assert box and 0 <= box["y"] < student.page.viewport_size["height"] / 2, box
        nexts = student.page.get_by_role("button", name="下一步 ▶")
        nexts.first.wait_for()
        student.page.wait_for_function(
            "() => [...document.querySelectorAll('button')]"
            ".filter(b => b.innerText.includes('下一步')).every(b => b.disabled)",
            timeout=20000,
        )
        assert nexts.count() >= 1
    _viewport_shot(phone, "class-zh-phone-locked")

    # they answer: the phone right, the laptop wrong
    _answer(phone, RIGHT)
    _answer(laptop, WRONG)
    _see(teacher, "已答 2 / 2")

    # Reveal: the right answer, and its one line of why, on every screen
    teacher.page.get_by_role("button", name="公布答案").click()
    _see(phone, re.compile(rf"答对了：[A-D]\. {RIGHT}"))
    _see(laptop, re.compile(rf"正确答案是 [A-D]\. {RIGHT}；你选的是 [A-D]\. {WRONG}"))
    for s in (teacher, phone, laptop):
        _see(s, "为什么：")
        why = s.page.get_by_text("为什么：").first.locator("xpath=..").inner_text()
        assert WHY in why, why
    for student in (phone, laptop):  # the answer is in: the step's result is back
        student.wait_charts()
        _see(student, EXPLAIN_SCORES)
    _viewport_shot(phone, "class-zh-phone-revealed")
    _viewport_shot(teacher, "class-zh-teacher-revealed-1280")

    # the teacher closes the question; the summary lists it with half the class right
    teacher.page.get_by_role("button", name="结束提问").click()
    teacher.wait_idle()
    for student in (phone, laptop):
        student.page.get_by_text(SHAPE_PROMPT).first.wait_for(state="detached", timeout=20000)
    teacher.page.get_by_text("课堂小结 · 已提问 1 次").click()
    sidebar = teacher.page.get_by_test_id("stSidebar")
    sidebar.get_by_text(f"1. QKᵀ · {SHAPE_PROMPT}").wait_for(timeout=10000)  # the step named
    sidebar.get_by_text("2 人作答 · 答对 50%").wait_for(timeout=10000)  # one of two right
    teacher.shot("class-zh-teacher-summary")
    with teacher.page.expect_download() as download:
        teacher.page.get_by_role("button", name="下载课堂小结（CSV）").click()
    table = list(csv.reader(io.StringIO(open(download.value.path(), encoding="utf-8-sig").read())))
    assert table == [
        ["#", "问题", "回答数", "答对比例"],
        ["1", f"QKᵀ · {SHAPE_PROMPT}", "2", "50%"],
    ]

    for s in (teacher, phone, laptop):
        s.assert_healthy()
    for student in (phone, laptop):
        assert key not in _all_html(student) and key not in student.page.url
