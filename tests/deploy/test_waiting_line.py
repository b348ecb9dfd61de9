"""A class arriving on /generate at once, each learner with a prompt of their own (serve.py, over
Streamlit's websocket): the model takes the prompts' passes two at a time (this machine's cores),
and a learner whose pass waits is told their place in line, in their language, just under the
prompt box (before the pieces table), the count going down to "next" as the passes ahead finish.
"""

import asyncio
import re
import urllib.parse
from contextlib import AsyncExitStack

from tests.support.model_work import until_loaded, work
from tests.support.servers import serving
from tests.support.session import connect
from ui.kit.i18n import t

LEARNERS = 6
SENTENCE = "The small cat sat on the warm mat and looked at the door. "  # 13 pieces


def _place(lang: str) -> re.Pattern:
    """The waiting line's wording in ``lang`` (its string, not a copy of it), k read back."""
    before, after = t("shell.model_waiting", lang, k="\0").split("\0")
    return re.compile(re.escape(before) + r"(\d+)" + re.escape(after))


def _query(i: int, lang: str) -> str:
    text = f"Story {i}: " + SENTENCE * 16  # about 215 pieces: a pass of a second or more here
    return f"lang={lang}&gen_prompt={urllib.parse.quote(text)}"


def _line(texts: list[str], lang: str) -> list:
    """What the learner was told while waiting, in order: each place (k ahead), or "next"."""
    next_up, place = t("shell.model_next", lang), _place(lang)
    told = []
    for text in texts:
        at = place.fullmatch(text)
        told += [int(at.group(1))] if at else ["next"] if text == next_up else []
    return told


async def _arrive(port: int) -> tuple[list, dict]:
    base = f"http://127.0.0.1:{port}"
    await until_loaded(base)
    async with AsyncExitStack() as stack:
        langs = ["en" if i % 2 == 0 else "zh" for i in range(LEARNERS)]
        arriving = (
            connect(base, "generate", _query(i, lang), None, stack) for i, lang in enumerate(langs)
        )
        learners = await asyncio.gather(*arriving)
        seen = [
            (lang, _line(learner.texts, lang), learner.texts, learner.exceptions)
            for lang, learner in zip(langs, learners)
        ]
    return seen, await work(base)


def test_learners_whose_pass_waits_see_their_place_under_the_prompt_box_in_their_language():
    with serving(script="serve.py") as (port, _server):
        seen, counts = asyncio.run(_arrive(port))
    assert counts["longest_line"] >= LEARNERS - 2  # two passes at once; the others queued
    waited = [told for _lang, told, _texts, _errors in seen if told]
    assert len(waited) >= LEARNERS - 2
    for lang, told, texts, errors in seen:
        assert not errors
        pieces = texts.index(t("generate.pieces_title", lang))  # every page drawn to the end
        assert t("generate.diff_title", lang) in texts
        if told:  # the line came before the pieces table: under the box, where they typed
            first = next(i for i, text in enumerate(texts) if _line([text], lang))
            assert first < pieces
            places = [k if k != "next" else 0 for k in told]
            assert places == sorted(places, reverse=True)  # only ever moving up
    assert max(k for told in waited for k in told if k != "next") >= 1
    assert any("next" in told for told in waited)
    assert {lang for lang, told, *_ in seen if told} == {"en", "zh"}
