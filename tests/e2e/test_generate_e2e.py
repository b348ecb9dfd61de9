"""The generate page in Chromium: a Chinese prompt typed, Next pressed three times, the tokens
appear one by one and the bars change; screenshots at 1400 px, on a phone and on a projector."""


def _bars(s) -> list:
    return s.chart_data(0)[0]["text"]  # the ten candidates' probabilities, as printed


def _written(s) -> str:
    return s.page.locator("p", has_text="目前的文字").first.inner_text()


def test_type_a_chinese_prompt_and_write_three_tokens(session):
    s = session().open("/generate?lang=zh")
    s.wait_charts(3, timeout=90000)  # the first visit loads the model
    box = s.page.get_by_test_id("stTextArea").locator("textarea")
    box.fill("猫坐在")
    box.press("Control+Enter")
    s.page.locator("p", has_text="目前的文字：猫坐在").first.wait_for(timeout=30000)
    s.wait_idle()
    texts, bars = [_written(s)], [_bars(s)]
    for step in range(3):
        s.page.get_by_role("button", name="下一个").click()
        s.page.get_by_text(f"第 {step + 1} 步选了", exact=False).first.wait_for(timeout=30000)
        s.wait_idle()
        s.assert_healthy()
        texts.append(_written(s))
        bars.append(_bars(s))
    assert all(len(b) > len(a) and b.startswith(a[: len(a) - 1]) for a, b in zip(texts, texts[1:]))
    assert len({tuple(b) for b in bars}) == 4  # each step's bars are its own
    assert box.input_value() == "猫坐在" and "written=3" in s.page.url
    s.shot("generate-zh-1400")


def test_the_generate_page_on_a_phone_and_a_projector(session):
    phone = session(width=390, height=844).open("/generate?lang=zh&written=2")
    phone.wait_charts(3, timeout=90000)
    phone.assert_healthy()
    phone.shot("generate-zh-phone")
    big = session(width=1280, height=720).open("/generate?lang=en&big=true&written=2")
    big.wait_charts(3, timeout=90000)
    big.assert_healthy()
    big.shot("generate-en-projector")
