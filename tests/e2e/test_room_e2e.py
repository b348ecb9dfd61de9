"""One teacher and two students (English on a laptop, Chinese on a phone) in real browsers."""

import re
from urllib.parse import urlsplit

import pytest


def _text(s, words: str, timeout: int = 15000) -> None:
    s.page.get_by_text(words, exact=False).first.wait_for(timeout=timeout)


@pytest.mark.e2e
def test_a_teacher_drives_two_students_through_a_question(session):
    teacher = session().open("/room?lang=en")
    teacher.page.get_by_role("button", name="Open a room").click()
    teacher.page.wait_for_function(
        "[...document.querySelectorAll('code')].some(c => c.innerText.includes('?room='))"
    )
    teacher.page.get_by_text("Your teacher's link").click()
    links = teacher.page.locator("code").all_inner_texts()
    students_link = next(c for c in links if "?room=" in c and "key=" not in c)
    teachers_link = next(c for c in links if "key=" in c)
    code = re.search(r"room=(\w+)", students_link).group(1)
    teacher.shot("room-en-opened")

    assert urlsplit(teachers_link).netloc == urlsplit(teacher.base).netloc  # this server's address
    path = teachers_link.split(urlsplit(teachers_link).netloc, 1)[1]
    teacher.open(f"{path}&lang=en&step=softmax&mask=causal&focus=3&sentence=我+喜欢+学习+语言")
    assert "key=" not in teacher.page.url  # gone from the address bar before anything is shown
    laptop = session().open(f"/?room={code}&lang=en")
    phone = session(locale="zh-CN", width=390, height=844).open(f"/?room={code}&lang=zh")
    for student in (laptop, phone):  # they follow: the teacher's sentence and step
        _text(student, "following" if student is laptop else "正在跟着老师")
        box = student.page.get_by_test_id("stTextInput").locator("input").first
        student.page.wait_for_function(
            "el => el.value === '我 喜欢 学习 语言'", arg=box.element_handle(), timeout=15000
        )
    _text(teacher, "2 students connected")

    teacher.page.get_by_role("button", name="Ask the class").click()
    for student, words, send in (
        (laptop, "Your answer", "Send my answer"),
        (phone, "你的答案", "提交答案"),
    ):
        _text(student, "row 3 of A" if student is laptop else "A 的行 3 之和")
        radio = student.page.get_by_test_id("stRadio").filter(has_text=words)
        radio.locator("label").filter(has_text=re.compile(r"^1$")).click()
        button = student.page.get_by_role("button", name=send)
        button.wait_for()
        student.page.wait_for_function("el => !el.disabled", arg=button.element_handle())
        button.click()
        _text(student, "Sent: 1" if student is laptop else "已提交：1")
    _text(teacher, "2 answers so far")
    teacher.shot("room-en-teacher-answers")

    # one browser, one answer: the phone reloads, the laptop opens a new tab, and both answer
    # again; the class still counts two
    phone.page.reload()
    phone.wait_idle()
    laptop.page = laptop.context.new_page()
    laptop.open(f"/?room={code}&lang=en")
    for student, words, send, sent in (
        (laptop, "Your answer", "Send my answer", "Sent: 1"),
        (phone, "你的答案", "提交答案", "已提交：1"),
    ):
        radio = student.page.get_by_test_id("stRadio").filter(has_text=words)
        radio.locator("label").filter(has_text=re.compile(r"^1$")).click()
        button = student.page.get_by_role("button", name=send)
        student.page.wait_for_function("el => !el.disabled", arg=button.element_handle())
        button.click()
        _text(student, sent)
    assert len({c["value"] for s in (laptop, phone) for c in s.context.cookies()
                if c["name"] == "self_attention_browser"}) == 2  # fmt: skip
    teacher.page.wait_for_timeout(2500)
    _text(teacher, "2 answers so far")

    # the teacher reloads, then types ?big=true by hand: still the teacher, key nowhere
    key = teachers_link.split("key=")[1]
    for address in (None, "/?big=true&lang=en"):
        if address is None:
            teacher.page.reload()
            teacher.wait_idle()
        else:
            teacher.open(address)
        _text(teacher, "you are the teacher")
        assert f"room={code}" in teacher.page.url and key not in teacher.page.url
        assert key not in teacher.page.content()
    teacher.page.get_by_role("button", name="Reveal").click()
    _text(laptop, "Right: 1")
    _text(phone, "答对了：1")
    phone.shot("room-zh-phone-revealed")
    for s in (teacher, laptop, phone):
        s.assert_healthy()
    assert teachers_link.split("key=")[1] not in laptop.page.content() + phone.page.content()


@pytest.mark.e2e
@pytest.mark.parametrize(
    "sent", ["[x](http://evil.example/)", "![x](http://evil.example/x.png)", "<img src=http://evil.example/y.png>"]
)  # fmt: skip
def test_a_code_in_the_address_is_echoed_inert(session, sent):
    from urllib.parse import quote

    s = session().open(f"/?room={quote(sent)}&lang=en")
    _text(s, "is not a room code")
    assert s.page.locator("a[href*='evil'], img[src*='evil']").count() == 0
    s.assert_healthy()  # nothing was fetched from evil.example
