"""A room in AppTest: opening it, a teacher and students in separate sessions of one server,
following, asking, answering, revealing, wrong codes, and the key kept off students' pages."""

import ui.kit.browser
from classroom.rooms import ROOM_TTL, UNTAUGHT_TTL
from tests.support.app import charts, decode, page_text, room_opened, run_app
from ui.kit.i18n import t
from ui.room import connection as room
from ui.shell.registry import script_path


def test_opening_a_room_shows_both_links_and_a_qr_code():
    at, code, key = room_opened()
    assert room.rooms().is_teacher(code, key)
    import io

    import segno.helpers  # noqa: F401  (the generator; a decoder is not at hand: read the PNG)

    from ui.views.room import qr_png

    png = qr_png(f"http://localhost:8501/?room={code}")
    assert png.startswith(b"\x89PNG") and len(at.get("image")) == 1  # the QR code, made here
    assert io.BytesIO(png).getbuffer().nbytes > 200
    at, _, _ = room_opened("zh")
    assert any("开一个课堂" in b.label for b in at.button)


def test_the_teachers_key_leaves_the_address_bar_and_drives_the_room():
    _, code, key = room_opened()
    teacher = run_app(room=code, key=key, lang="en", sentence="我 喜欢 学习 语言", step="softmax")
    assert not teacher.exception
    assert "key" not in teacher.query_params and teacher.session_state["room_key"] == key
    assert "you are the teacher" in " ".join(c.value for c in teacher.caption)
    view = room.rooms().get(code)["view"]
    assert view["sentence"] == "我 喜欢 学习 语言" and view["step"] == "softmax"


def test_a_student_follows_the_teacher_in_their_own_language_and_can_explore():
    _, code, key = room_opened()
    run_app(room=code, key=key, lang="en", sentence="我 喜欢 学习 语言", step="av", d_model=16)
    student = run_app(room=code, lang="zh")
    assert not student.exception
    assert student.session_state["sentence"] == "我 喜欢 学习 语言"
    assert student.session_state["step"] == "av" and student.session_state["d_model"] == 16
    assert "4 个 token" in page_text(student)  # the teacher's sentence, on the student's page
    assert "课堂" in page_text(student) and key not in str(student.query_params)
    assert key not in page_text(student) + " ".join(c.value for c in student.code)
    # following: the room sets the sentence and the layer, and the sidebar says so in their place
    sidebar = " ".join(c.value for c in student.sidebar.caption)
    assert "句子和注意力层由老师设置" in sidebar and "“跟着老师”" in sidebar
    assert not [w for w in student.sidebar.text_input if w.key == "sentence"]
    assert not [w for w in student.sidebar.selectbox if w.key == "d_model"]
    assert student.sidebar.slider(key="decimals")  # a display setting stays the student's
    student.toggle(key="room_follow").set_value(False).run()
    # exploring: the widgets are back, holding the teacher's view until the student changes it
    assert student.text_input(key="sentence").value == "我 喜欢 学习 语言"
    assert student.selectbox(key="d_model").value == 16
    assert "句子和注意力层由老师设置" not in " ".join(c.value for c in student.sidebar.caption)
    student.text_input(key="sentence").set_value("my own sentence").run()
    run_app(room=code, key=key, lang="en", sentence="the teacher moves on", step="softmax")
    student.run()
    assert student.text_input(key="sentence").value == "my own sentence"  # exploring alone
    student.toggle(key="room_follow").set_value(True).run()
    student.run()
    assert student.session_state["sentence"] == "the teacher moves on"  # snapped back
    assert "4 个 token" in page_text(student)
    student.run()  # a run with no widget for it keeps the teacher's sentence
    assert student.session_state["sentence"] == "the teacher moves on"
    assert student.session_state["d_model"] == 8 and "4 个 token" in page_text(student)


def test_ask_answer_and_reveal():
    _, code, key = room_opened()
    teacher = run_app(room=code, key=key, lang="en", step="softmax", mask="causal")
    teacher.selectbox(key="q_kind_softmax").set_value("row_sum").run()
    teacher.button(key="room_ask").click().run()
    question = room.rooms().get(code)["question"]
    assert question and question["kind"] == "row_sum"
    students = [run_app(room=code, lang=lang) for lang in ("en", "zh", "en")]
    for i, student in enumerate(students):
        assert not student.exception
        choice = (
            question["answer"] if i < 2 else (question["answer"] + 1) % len(question["choices"])
        )
        student.radio(key=f"choice_{question['id']}").set_value(choice).run()
        student.button(key=f"send_{question['id']}").click().run()
        assert not student.exception
    assert room.rooms().answers(code, question["id"])[question["answer"]] == 2
    teacher.run()
    assert not [c for c in charts(teacher) if c["data"][0]["type"] == "bar"]  # not before asked
    assert "Answered 3 / 3" in " ".join(c.value for c in teacher.caption)  # the compact strip
    teacher.toggle(key=f"show_answers_{question['id']}").set_value(True).run()
    bars = next(c for c in charts(teacher) if c["data"][0]["type"] == "bar")
    assert (
        sum(decode(bars["data"][0]["y"])) == 3
        and "3 answers so far" in bars["layout"]["title"]["text"]
    )
    teacher.button(key="room_reveal").click().run()
    students[0].run()
    students[1].run()
    students[2].run()
    label = question["choices"][question["answer"]][0]  # a number: shown as it is, lettered
    right = f"Right: {'ABCD'[question['answer']]}\\. {label}"  # (markdown source: escaped)
    assert any(right in s.value for s in students[0].success)
    assert any("答对了" in s.value for s in students[1].success)
    assert any("you chose" in w.value for w in students[2].warning)


def test_a_wrong_or_expired_code_says_so_in_the_learners_language():
    for lang, code, words in (
        ("en", "ZZZZZ", "There is no room ZZZZZ"),
        ("zh", "ZZZZZ", "没有代码为 ZZZZZ 的课堂"),
        ("en", "no!", "is not a room code"),
        ("zh", "no!", "不是课堂代码"),
    ):
        at = run_app(room=code, lang=lang)
        assert not at.exception
        assert any(words in w.value for w in at.warning), (lang, code)


def test_joining_by_code_on_the_room_page():
    _, code, _ = room_opened()
    at = run_app("room", lang="en")
    at.text_input(key="room_join_code").set_value(code.lower()).run()
    at.button(key="room_join_button").click().run()
    assert not at.exception
    assert at.session_state["room"] == code


def test_an_expired_room_says_so_to_a_student_in_their_language(room_clock):
    def no_room(at, words):
        return any(words in w.value for w in at.warning)

    _, code, key = room_opened()
    run_app(room=code, key=key, lang="en", step="softmax")  # taught: it lives 12 hours
    room_clock.now += ROOM_TTL - 60
    assert not no_room(run_app(room=code, lang="en"), "There is no room")
    room_clock.now += 60
    for lang, words in (("en", f"There is no room {code}"), ("zh", f"没有代码为 {code} 的课堂")):
        at = run_app(room=code, lang=lang)
        assert not at.exception and no_room(at, words)
    _, code, _ = room_opened()  # one nobody teaches in: 15 minutes
    room_clock.now += UNTAUGHT_TTL - 60
    assert not no_room(run_app(room=code, lang="en"), "There is no room")
    room_clock.now += 60
    assert no_room(run_app(room=code, lang="en"), f"There is no room {code}")


def test_a_teacher_back_after_a_reload_types_the_key_and_drives_again():
    _, code, key = room_opened()
    again = run_app(room=code, lang="en")  # another browser: no cookie, no key in the address
    assert "room_key" not in again.session_state
    assert not [i for i in again.text_input if i.key == "room_key_input"]  # no key box at first
    again.toggle(key="room_i_am_teacher").set_value(True).run()
    again.text_input(key="room_key_input").set_value("wrong key").run()
    assert any("does not drive" in w.value for w in again.warning)
    again.text_input(key="room_key_input").set_value(key).run()
    again.run()
    assert again.session_state["room_key"] == key
    assert "you are the teacher" in " ".join(c.value for c in again.caption)


def _the_browsers_cookies(monkeypatch, teacher_session):
    """What a browser sends after a session set cookies: those it was asked to keep."""
    jar = {
        name: value
        for name, (value, age) in teacher_session.session_state["_cookies_due"].items()
        if age
    }
    monkeypatch.setattr(ui.kit.browser, "_cookie", lambda name: jar.get(name, ""))
    return jar


def test_the_browser_that_opens_a_room_keeps_its_key_at_once_and_its_desk_moves_nobody(
    monkeypatch,
):
    """Opening a room writes the teacher's cookie in that run, before "start teaching": a
    reload of the room page shows the same room. The room page is the teacher's desk: a
    teacher there publishes no view, so the class stays on the last step it was shown."""
    at = run_app("room", lang="en")
    at.button(key="room_open").click().run()
    code, key = at.session_state["room_opened"]
    jar = _the_browsers_cookies(monkeypatch, at)
    assert jar["self_attention_teacher"] == f"{code}:{key}"  # due in the opening run itself
    assert not room.rooms().get(code)["view"]  # the desk published nothing
    again = run_app("room", lang="en", room=code)  # the room page, reloaded
    assert not again.exception and again.session_state["room_key"] == key
    assert f"Room {code} is open." in page_text(again)  # its links again, not "open a room"
    teacher = run_app(room=code, lang="en", step="softmax")  # teaching: the class sees softmax
    assert room.rooms().get(code)["view"]["page"] == "walkthrough"
    version = room.rooms().get(code)["version"]
    teacher.switch_page(script_path("room")).run()  # back at the desk, to show the QR code
    assert not teacher.exception and teacher.session_state["_page_script"] == "room"
    assert room.rooms().get(code)["version"] == version  # nobody is sent to the room page
    monkeypatch.setattr(ui.kit.browser, "_cookie", lambda name: "")  # a student's browser
    student = run_app(room=code, lang="en")
    assert student.session_state["_page_script"] == "walkthrough"
    assert student.session_state["step"] == "softmax"


def test_the_teacher_keeps_the_room_through_reloads_and_addresses_typed_by_hand(monkeypatch):
    at = run_app("room", lang="zh")
    at.button(key="room_open").click().run()
    code, key = at.session_state["room_opened"]
    at.button(key="room_go_teach").click().run()
    assert at.query_params["room"] == code and "key" not in at.query_params  # room= stays
    jar = _the_browsers_cookies(monkeypatch, at)
    assert jar["self_attention_teacher"] == f"{code}:{key}"
    for query in ({"room": code, "lang": "zh"}, {"big": "true", "lang": "zh"}, {"lang": "en"}):
        again = run_app(**query)  # a reload, ?big=true typed by hand, a new tab without room=
        assert not again.exception
        assert again.session_state["room_key"] == key and again.query_params["room"] == code
        shown = page_text(again) + " ".join(c.value for c in again.code) + str(again.query_params)
        assert key not in shown  # the key appears nowhere in the page or the address
        assert "你是老师" in shown or "you are the teacher" in shown
    monkeypatch.setattr(ui.kit.browser, "_cookie", lambda name: "")  # another browser: no cookie
    student = run_app(room=code, lang="zh")
    assert "room_key" not in student.session_state


def test_the_key_is_shown_only_on_request_and_never_on_the_projector():
    _, code, key = room_opened()
    teacher = run_app(room=code, key=key, lang="en")
    assert key not in " ".join(c.value for c in teacher.code)
    teacher.toggle(key="room_show_key").set_value(True).run()
    assert key in " ".join(c.value for c in teacher.code)  # written down from the sidebar
    projector = run_app(room=code, key=key, lang="en", big="true")
    assert not [t for t in projector.toggle if t.key == "room_show_key"]
    assert key not in " ".join(c.value for c in projector.code) + page_text(projector)


def test_leaving_the_room_forgets_the_key_in_the_browser(monkeypatch):
    at = run_app("room", lang="en")
    at.button(key="room_open").click().run()
    code, key = at.session_state["room_opened"]
    at.button(key="room_go_teach").click().run()
    at.button(key="room_leave").click().run()
    assert at.session_state["_cookies_due"]["self_attention_teacher"] == ("", 0)
    assert "room" not in at.query_params and "room_key" not in at.session_state


def test_an_open_question_hides_the_steps_result_on_students_screens_until_revealed():
    _, code, key = room_opened()
    teacher = run_app(room=code, key=key, lang="en", step="softmax", sentence="a b c")
    student = run_app(room=code, lang="zh")
    assert [c for c in charts(student) if "softmax" in str(c["layout"].get("title"))]
    teacher.button(key="room_ask").click().run()
    student.run()
    text = page_text(student)
    assert "老师正在向全班提问" in text
    assert not [c for c in charts(student) if c["data"][0]["type"] == "heatmap"]  # no A
    assert "**形状：**" not in text and "softmax 按行进行" not in text  # no shapes, no explanation
    assert [c for c in charts(teacher) if c["data"][0]["type"] == "heatmap"]  # the teacher's
    assert not [w for w in student.toggle if w.key == "predict"]  # one question at a time
    teacher.button(key="room_reveal").click().run()
    student.run()
    assert [c for c in charts(student) if c["data"][0]["type"] == "heatmap"]
    assert [w for w in student.toggle if w.key == "predict"]
    assert "老师正在向全班提问" not in page_text(student)
    teacher.button(key="room_close_question").click().run()
    assert room.rooms().get(code)["question"] is None


def test_the_question_kind_starts_from_each_steps_own_first_kind():
    _, code, key = room_opened()
    teacher = run_app(room=code, key=key, lang="en", step="softmax")
    teacher.selectbox(key="q_kind_softmax").set_value("shape").run()
    teacher.button(key="next_step").click().run()  # softmax -> av
    assert teacher.selectbox(key="q_kind_av").value == "output_cell"  # av's own first kind


def _captions(at) -> str:
    return " ".join(c.value for c in at.caption)


def test_everyone_follows_keeps_students_on_the_teachers_view():
    _, code, key = room_opened()
    teacher = run_app(room=code, key=key, lang="en", step="softmax", sentence="a b c")
    student = run_app(room=code, lang="zh")
    teacher.toggle(key="room_lock").set_value(True).run()
    assert room.rooms().get(code)["locked"]
    student.run()
    student.run()
    assert "老师已设置全班跟随" in _captions(student)
    assert any("老师已设置全班跟随" in c.value for c in student.main.caption)  # not the sidebar's
    assert student.button(key="next_step").disabled and student.button(key="prev_step").disabled
    assert student.toggle(key="room_follow").disabled
    sidebar = " ".join(c.value for c in student.sidebar.caption)
    assert "句子和注意力层由老师设置" in sidebar and "关掉" not in sidebar  # nothing to turn off
    assert not [w for w in student.sidebar.text_input if w.key == "sentence"]
    assert student.session_state["sentence"] == "a b c" and "3 个 token" in page_text(student)
    teacher.toggle(key="room_lock").set_value(False).run()
    student.run()
    student.run()
    assert not student.button(key="next_step").disabled


def test_a_student_who_moves_on_is_told_where_the_teacher_is_and_counted():
    _, code, key = room_opened()
    teacher = run_app(room=code, key=key, lang="zh", step="softmax", sentence="a b c")
    student = run_app(room=code, lang="zh")
    student.button(key="next_step").click().run()  # pressed Next on their own
    student.run()
    assert student.session_state["room_follow"] is False
    assert "你在“AV”这一步，老师在“softmax”。" in _captions(student)
    assert "自行探索" in page_text(student) or "自行探索" in _captions(student)
    teacher.run()
    assert "跟随 0 · 自行探索 1 · :material/front_hand: 0" in _captions(teacher)
    student.button(key="room_back").click().run()
    student.run()
    assert student.session_state["step"] == "softmax" and student.session_state["room_follow"]


def test_a_student_exploring_on_the_teachers_step_is_not_told_they_are_elsewhere():
    _, code, key = room_opened()
    run_app(room=code, key=key, lang="zh", step="softmax", sentence="a b c")
    student = run_app(room=code, lang="zh")
    student.toggle(key="room_follow").set_value(False).run()
    student.run()
    assert student.session_state["step"] == "softmax"
    assert "这一步，老师在" not in _captions(student)  # the same step: no "you are at ..." line
    assert student.button(key="room_back")  # still one press back to the teacher's view
    student.button(key="room_back").click().run()
    assert student.session_state["room_follow"]


def test_im_lost_raises_a_count_that_clears_when_the_teacher_moves_on():
    _, code, key = room_opened()
    teacher = run_app(room=code, key=key, lang="en", step="softmax", sentence="a b c")
    students = [run_app(room=code, lang="en") for _ in range(2)]
    for student in students:
        student.button(key="room_lost").click().run()
        assert "The teacher can see" in _captions(student)
    teacher.run()
    assert "following 2 · exploring 0 · :material/front_hand: 2" in _captions(teacher)
    teacher.button(key="next_step").click().run()
    teacher.run()
    assert ":material/front_hand: 0" in _captions(teacher)


def test_the_summary_lists_each_question_with_the_share_right_and_downloads_as_csv():
    _, code, key = room_opened()
    teacher = run_app(room=code, key=key, lang="zh", step="softmax", sentence="a b c")
    for i in range(2):
        teacher.button(key="room_ask").click().run()
        question = room.rooms().get(code)["question"]
        wrong = (question["answer"] + 1) % len(question["choices"])
        room.rooms().answer(code, question["id"], "s1", question["answer"])
        for s in ("s2", "s3", "s4")[: i + 1]:
            room.rooms().answer(code, question["id"], s, wrong)
        teacher.run()
    asked = [m.value for m in teacher.sidebar.markdown if m.value.startswith(("**1.**", "**2.**"))]
    assert len(asked) == 2 and all("A 中行" in line for line in asked)
    lines = [c.value for c in teacher.sidebar.caption if "人作答" in c.value]
    assert lines == ["2 人作答 · 答对 50%", "3 人作答 · 答对 33%"]  # answers, and the share right
    assert any("课堂小结 · 已提问 2 次" in e.label for e in teacher.expander)
    labels = [button.proto.label for button in teacher.get("download_button")]
    assert "下载课堂小结（CSV）" in labels


def test_how_to_join_shows_the_code_and_the_qr_but_never_the_key():
    _, code, key = room_opened()
    teacher = run_app(room=code, key=key, lang="zh", big="true")
    teacher.button(key="room_how_to_join").click().run()
    bodies = [h.proto.body for h in teacher.get("html")]
    # the one script that writes this browser's own cookie holds the key; it shows nothing
    writer = [b for b in bodies if "document.cookie" in b]
    assert len(writer) <= 1 and all(f"self_attention_teacher={code}:{key}" in b for b in writer)
    shown = " ".join(b for b in bodies if b not in writer) + page_text(teacher)
    assert f">{code}</div>" in shown and f"?room={code}" in shown
    assert key not in shown + " ".join(c.value for c in teacher.code)
    assert len(teacher.get("imgs")) >= 1 or len(teacher.get("image")) >= 1  # the QR code


def test_the_teachers_hint_to_go_to_an_attention_step_is_not_projected():
    _, code, key = room_opened()
    hint = "转到注意力的步骤"
    assert hint in page_text(run_app(room=code, key=key, lang="zh", step="tokens"))
    assert hint not in page_text(run_app(room=code, key=key, lang="zh", step="tokens", big="true"))


def test_a_projector_shows_neither_the_backend_line_nor_the_downloads():
    at = run_app(lang="en", big="true", step="softmax")
    assert "Computed with" not in page_text(at) and not at.get("download_button")
    normal = run_app(lang="en", step="softmax")
    assert "Computed with" in page_text(normal) and normal.get("download_button")


def test_the_summary_csv_reads_back_with_its_bom_for_excel():
    import csv
    import io

    from ui.room import summary as room_summary

    asked = [
        {"kind": "row_sum", "params": {"i": "3"}, "answer": 1, "counts": [1, 3, 0, 0]},
        {"kind": "row_sum", "params": {"i": "2"}, "answer": 0, "counts": [0, 0, 0, 0]},
    ]
    data = room_summary.as_csv(room_summary.rows(asked))
    assert data.startswith(b"\xef\xbb\xbf")
    table = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
    assert table[0] == ["#", "Question", "Answers", "Right"]
    assert [row[2:] for row in table[1:]] == [["4", "75%"], ["0", "–"]]


def test_a_teachers_new_tab_with_a_view_in_its_link_takes_the_class_there():
    _, code, key = room_opened()
    run_app(room=code, key=key, lang="en", step="scores")
    bare = run_app(room=code, key=key, lang="en")  # no view in the link: the room's view
    assert bare.session_state["step"] == "scores"
    linked = run_app(room=code, key=key, lang="en", step="softmax", sentence="a b c")
    assert linked.session_state["step"] == "softmax"  # its own link wins, and is published
    assert room.rooms().get(code)["view"]["step"] == "softmax"


def test_the_cookie_script_leaves_the_page_once_the_browser_has_had_time_to_run_it(monkeypatch):
    """The teacher's cookie is written by a script on the runs of the first WRITE_S seconds;
    after that the page carries it no more (nor the key in it), and a new cookie brings it back."""
    _, code, key = room_opened()
    clock = [1000.0]
    monkeypatch.setattr(ui.kit.browser.time, "monotonic", lambda: clock[0])

    def writer(at) -> list[str]:
        return [h.proto.body for h in at.get("html") if "document.cookie" in h.proto.body]

    teacher = run_app(room=code, key=key, lang="en")
    assert any(f"self_attention_teacher={code}:{key}" in body for body in writer(teacher))
    clock[0] += ui.kit.browser.WRITE_S - 1
    assert writer(teacher.run())  # still within its time
    clock[0] += 2
    teacher.run()
    assert not writer(teacher) and "you are the teacher" in page_text(teacher)
    teacher.button(key="room_leave").click().run()  # leaving forgets the cookie: a new script
    assert any("self_attention_teacher=; Max-Age=0" in body for body in writer(teacher))


def test_a_following_students_page_has_no_foot_until_they_explore():
    """A follower's page is the teacher's step: no second Previous / Next under it, no backend
    line, no downloads, and no "the address keeps these settings" under the settings the room
    sets; turning "Follow the teacher" off brings all four back (and a learner alone has them)."""
    _, code, key = room_opened()
    run_app(room=code, key=key, lang="en", step="softmax")
    for lang, backend in (("zh", "计算后端"), ("en", "Computed with")):
        student = run_app(room=code, lang=lang)
        assert not student.exception and t("walkthrough.step_of", lang, i=8, n=11) in page_text(
            student
        )
        keys = {b.key for b in student.button}
        assert "next_step" in keys and "next_step_bottom" not in keys
        assert backend not in page_text(student) and not student.get("download_button")
        assert t("shell.share_hint", lang) not in [c.value for c in student.sidebar.caption]
        student.toggle(key="room_follow").set_value(False).run()
        keys = {b.key for b in student.button}
        assert "next_step_bottom" in keys and backend in page_text(student)
        assert len(student.get("download_button")) == 1  # the notebook; .npz and CSV folded
        student.session_state["walkthrough_export"] = True  # (drawn once the fold is opened)
        student.run()
        assert len(student.get("download_button")) == 3  # .npz, CSV and the notebook
        assert t("shell.share_hint", lang) in [c.value for c in student.sidebar.caption]
    alone = run_app(lang="en", step="softmax")
    assert "next_step_bottom" in {b.key for b in alone.button} and alone.get("download_button")


def test_the_class_notebook_carries_the_summary_in_the_teachers_language():
    from ui.room import summary as room_summary

    asked = [{"kind": "row_sum", "params": {"i": "3"}, "answer": 1, "counts": [1, 3, 0, 0]}]
    zh = room_summary.as_markdown(room_summary.rows(asked), "zh")
    assert zh.startswith("## 本节课的问题") and zh.splitlines()[2].endswith("：4 人作答 · 答对 75%")
    en = room_summary.as_markdown(room_summary.rows(asked), "en")
    assert en.splitlines()[2].endswith(": 4 answers · 75% right")
