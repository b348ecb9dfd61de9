"""One teacher and two students (English on a laptop, Chinese on a phone) in real browsers."""

import re
from urllib.parse import urlsplit

import pytest

from classroom.pulse import HOLD_S
from tests.support.browser import wait_for_sentence


def _text(s, words, timeout: int = 15000) -> None:
    """Wait until ``words`` (a string, or a compiled pattern) is on the page."""
    found = s.page.get_by_text(words) if isinstance(words, re.Pattern) else (
        s.page.get_by_text(words, exact=False)
    )  # fmt: skip
    found.first.wait_for(timeout=timeout)


ONE = re.compile(r"^[A-D]\. 1$")  # the choice "1", lettered as on every screen


def _open_room(session):
    """A teacher opens a room on /room: (their page, the code, the students' link, the
    teacher's link)."""
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
    return teacher, code, students_link, teachers_link


@pytest.mark.e2e
def test_a_teacher_drives_two_students_through_a_question(session):
    teacher, code, students_link, teachers_link = _open_room(session)
    teacher.shot("room-en-opened")

    assert urlsplit(teachers_link).netloc == urlsplit(teacher.base).netloc  # this server's address
    path = teachers_link.split(urlsplit(teachers_link).netloc, 1)[1]
    teacher.open(f"{path}&lang=en&step=softmax&mask=causal&focus=3&sentence=我+喜欢+学习+语言")
    assert "key=" not in teacher.page.url  # gone from the address bar before anything is shown
    laptop = session().open(f"/?room={code}&lang=en")
    phone = session(locale="zh-CN", width=390, height=844).open(f"/?room={code}&lang=zh")
    for student in (laptop, phone):  # they follow: the teacher's sentence and step
        _text(student, "following" if student is laptop else "正在跟着老师")
        wait_for_sentence(student.page, "我 喜欢 学习 语言", "en" if student is laptop else "zh")
    _text(teacher, "2 students connected")

    teacher.page.get_by_role("button", name="Ask the class").click()
    _text(laptop, "The teacher asked the class a question")  # the result is hidden meanwhile
    _text(phone, "老师正在向全班提问")
    for student in (laptop, phone):
        assert student.page.get_by_test_id("stPlotlyChart").count() == 0
    for student, words, send in (
        (laptop, "Your answer", "Send my answer"),
        (phone, "你的答案", "提交答案"),
    ):
        # focus=3 counts from 0 in the URL; the question numbers it from 1 (the default): row 4
        _text(student, "row 4 of A" if student is laptop else "A 中行 4 的权重")
        radio = student.page.get_by_test_id("stRadio").filter(has_text=words)
        radio.locator("label").filter(has_text=ONE).click()
        button = student.page.get_by_role("button", name=send)
        button.wait_for()
        student.page.wait_for_function("el => !el.disabled", arg=button.element_handle())
        button.click()
        _text(
            student, re.compile(r"Sent: [A-D]\. 1" if student is laptop else r"已提交：[A-D]\. 1")
        )
    _text(teacher, "Answered 2 / 2")  # the compact strip; the chart waits for the teacher
    assert teacher.page.get_by_text("2 answers so far").count() == 0
    teacher.page.get_by_text("Show the answers so far").click()
    _text(teacher, "2 answers so far")
    teacher.shot("room-en-teacher-answers")

    # one browser, one answer: the phone reloads, the laptop opens a new tab, and each is shown
    # the answer it sent (from the room's store), not the choices again; the class counts two
    phone.page.reload()
    phone.wait_idle()
    laptop.page = laptop.context.new_page()
    laptop.open(f"/?room={code}&lang=en")
    for student, words, sent in (
        (laptop, "Your answer", re.compile(r"Sent: [A-D]\. 1")),
        (phone, "你的答案", re.compile(r"已提交：[A-D]\. 1")),
    ):
        _text(student, sent)
        assert student.page.get_by_test_id("stRadio").filter(has_text=words).count() == 0
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
    _text(laptop, re.compile(r"Right: [A-D]\. 1"))
    _text(phone, re.compile(r"答对了：[A-D]\. 1"))
    for student in (laptop, phone):  # the answer is in: the step's result is back
        student.wait_charts()
    phone.shot("room-zh-phone-revealed")
    # a latecomer: the projector shows how to join, Esc puts the step back
    teacher.open(f"/?room={code}&lang=en&big=true")
    teacher.page.get_by_role("button", name="How to join").click()
    dialog = teacher.page.get_by_role("dialog")
    dialog.get_by_text(code, exact=True).wait_for(timeout=15000)
    dialog.locator("img").first.wait_for(timeout=15000)  # the QR code
    assert key not in dialog.inner_html()
    teacher.shot("room-en-how-to-join-1280")
    teacher.page.keyboard.press("Escape")
    dialog.wait_for(state="detached", timeout=10000)
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


@pytest.mark.e2e
def test_an_idle_students_browser_holds_a_question_to_the_pulse_and_reruns_only_on_a_change(
    session,
):
    """serve.py answers the room's pulse: an idle student's browser asks it over HTTP, the
    server holds each question until the room changes (or for HOLD_S), and the page sends the
    server nothing over the websocket; the teacher's Next reaches the student's page through the
    held question at once, as one rerun."""
    teacher, code, _, teachers_link = _open_room(session)
    path = teachers_link.split(urlsplit(teacher.base).netloc, 1)[1]
    teacher.open(f"{path}&lang=en&step=scores")

    student = session(locale="zh-CN", width=390, height=844)
    asked, sent = [], []
    student.page.on("request", lambda r: "/room/pulse" in r.url and asked.append(r.url))
    student.page.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append(frame)))
    student.open(f"/?room={code}&lang=zh")
    _text(student, "正在跟着老师")
    _text(student, "第 5 步")  # the teacher's step (the scores)
    student.wait_idle()
    student.page.wait_for_timeout(1500)
    asked.clear(), sent.clear()
    student.page.wait_for_timeout(3 * HOLD_S * 1000)
    assert 2 <= len(asked) <= 4, asked  # held: about one question every HOLD_S, not a stream
    assert all(f"code={code}" in url and "seen=" in url for url in asked)
    assert sent == [], f"{len(sent)} websocket messages from an idle student"

    teacher.page.get_by_role("button", name="Next").first.click()
    _text(teacher, "Step 6 of")
    _text(student, "第 6 步", timeout=3000)  # through the held question: nothing else looks
    assert 1 <= len(sent) <= 2, f"{len(sent)} websocket messages for one change"
    student.shot("room-zh-phone-pulse")


@pytest.mark.e2e
def test_a_teacher_who_reloads_on_the_room_page_or_at_once_after_start_teaching_keeps_the_room(
    session,
):
    """The browser that opens a room keeps its key in a cookie from that moment, while its
    teacher reads the code: a reload of the room page shows the same room again, and a reload
    the instant after "start teaching" still drives it."""
    teacher, code, _, teachers_link = _open_room(session)
    key = teachers_link.split("key=")[1]
    teacher.page.reload()
    teacher.wait_idle()
    _text(teacher, f"Room {code} is open.")  # the same room, its links again; no second room
    teacher.page.get_by_role("button", name="Start teaching in this browser").click()
    teacher.page.wait_for_url(re.compile(r"/\?room="), timeout=15000)  # off the room page
    teacher.page.reload()  # at once: no wait for the page to settle
    teacher.wait_idle()
    _text(teacher, "you are the teacher")
    assert f"room={code}" in teacher.page.url and key not in teacher.page.url
    assert key not in teacher.page.content()
    assert teacher.page.get_by_text("I am the teacher", exact=True).count() == 0  # no switch


@pytest.mark.e2e
def test_the_teachers_link_sets_the_cookie_before_the_page_loads(session):
    """The teacher's link (serve.py's /room/teach) answers with the teacher's cookie and a
    redirect without the key: on another computer the projector's first page already drives
    the room, its address never held the key, and a reload at once keeps it."""
    _teacher, code, _, teachers_link = _open_room(session)
    key = teachers_link.split("key=")[1]
    assert "/room/teach?" in teachers_link
    projector = session(width=1280, height=720)
    addresses = []
    projector.page.on("framenavigated", lambda frame: addresses.append(frame.url))
    path = teachers_link.split(urlsplit(projector.base).netloc, 1)[1]
    projector.open(f"{path}&lang=zh&big=true")
    assert {c["name"]: c["value"] for c in projector.context.cookies()}[
        "self_attention_teacher"
    ] == f"{code}:{key}"  # set by the link's own answer, before any script ran
    _text(projector, "你是老师")
    assert all(key not in address for address in addresses), addresses  # never in the bar
    projector.page.reload()  # at once
    projector.wait_idle()
    _text(projector, "你是老师")
    assert key not in projector.page.url and key not in projector.page.content()
    projector.assert_healthy()


@pytest.mark.e2e
def test_a_room_opened_from_the_lessons_page_is_the_teachers_before_its_page_is_shown(session):
    """ "Open as a room" on the lessons page: by the time the lesson's first step shows the
    teacher's band, the browser holds the teacher's cookie (written in the page itself, not by a
    frame that loads later), so that a reload at once keeps the room; the key is in neither the
    address nor the page."""
    teacher = session().open("/lessons?lang=zh")
    teacher.page.get_by_role("button", name="作为课堂打开").first.click()
    _text(teacher, "你是老师")
    cookies = {c["name"]: c["value"] for c in teacher.context.cookies()}
    code, _, key = cookies.get("self_attention_teacher", "").partition(":")
    assert code and key, cookies  # already: no reload can come before it
    teacher.page.reload()  # at once
    teacher.wait_idle()
    _text(teacher, f"课堂 {code} · 你是老师")
    assert f"room={code}" in teacher.page.url and key not in teacher.page.url
    assert key not in teacher.page.content()
    teacher.assert_healthy()


@pytest.mark.e2e
def test_a_following_students_generate_page_takes_the_teachers_next_in_its_player_alone(session):
    """On /generate a following student's browser reruns only the player's fragment when the
    teacher presses Next (one websocket message, naming the fragment): the new token shows in
    the student's language; a new prompt from the teacher still redraws the whole page, and
    when the teacher moves on to the walkthrough the student goes along, step by step."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    teacher, code, _, teachers_link = _open_room(session)
    path = teachers_link.split(urlsplit(teacher.base).netloc, 1)[1]
    teacher.open(f"{path}&lang=en")  # the teacher's cookie, then the teacher's /generate
    _text(teacher, "you are the teacher")
    teacher.open(f"/generate?room={code}&lang=en&gen_mode=sample&gen_seed=7")
    teacher.wait_charts(3, timeout=90000)

    student = session(locale="zh-CN", width=390, height=844)
    sent = []
    student.page.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append(frame)))
    student.open(f"/?room={code}&lang=zh")
    student.wait_charts(3, timeout=90000)  # on the teacher's /generate
    student.wait_idle()
    student.page.wait_for_timeout(1500)
    sent.clear()

    teacher.page.get_by_role("button", name="Next").first.click()
    _text(teacher, "Step 1 chose")
    _text(student, "第 1 步选了", timeout=5000)
    student.wait_idle()
    messages = [BackMsg.FromString(frame) for frame in sent if isinstance(frame, bytes)]
    reruns = [m.rerun_script for m in messages if m.WhichOneof("type") == "rerun_script"]
    assert len(reruns) == 1 and reruns[0].fragment_id, reruns  # the player's fragment alone
    student.assert_healthy()
    student.shot("room-zh-phone-generate-follow")

    box = teacher.page.get_by_test_id("stTextArea").locator("textarea")
    box.fill("Once upon a time")
    box.press("Control+Enter")
    _text(student, "目前的文字：Once upon a time", timeout=15000)  # the whole page, redrawn
    student.assert_healthy()

    # the teacher moves on to the walkthrough: the player's listener left with its page, and
    # the page's own listener takes the student along, then to the teacher's next step
    teacher.open(f"/?room={code}&lang=en&step=scores")
    _text(student, "第 5 步", timeout=15000)
    teacher.page.get_by_role("button", name="Next").first.click()
    _text(teacher, "Step 6 of")
    _text(student, "第 6 步", timeout=5000)
    student.assert_healthy()
